"""Teach the camera on the calibration page: read the scene's dice, correct one, add one the
camera missed, confirm three photos, learn; the page and the board then say how many photos
the camera learned from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import LiveServer, remember_pin
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_three_confirmed_photos_teach_the_camera_this_table(
        phone: Any, tv: Any, live_server: LiveServer, tmp_path: Path,
        screenshot_dir: Path) -> None:
    from calibration import load_profile, save_profile

    remember_pin(phone, live_server.pin)
    table = live_server.table
    previous = table.profile
    path = save_profile(previous, tmp_path / "scene.toml")
    table.profile = load_profile(path)  # the table as `bluffcam serve --profile FILE` opens it
    try:
        phone.goto("/calibration")
        expect(phone.locator("#teach-count")).to_contain_text(
            "0 photos confirmed; the camera has not learned this table yet.")
        expect(phone.locator("#teach-learn")).to_be_disabled()
        for n in (1, 2, 3):
            phone.click("#teach-read")
            expect(phone.locator("#teach-dice li")).to_have_count(6)
            if n == 1:  # a correction is kept as the photo's label, and a die added
                phone.locator("#teach-dice select").first.select_option("6")
                phone.click("#teach-add")
                expect(phone.locator("#teach-dice li")).to_have_count(7)
                phone.screenshot(path=str(screenshot_dir / "teach-the-camera.png"),
                                 full_page=True)
            phone.click("#teach-confirm")
            expect(phone.locator("#teach-note")).to_have_text(
                f"Photo {n} kept. Roll again for the next one.")
        phone.click("#teach-learn")
        expect(phone.locator("#teach-note")).to_have_text(
            "The camera learned this table from 3 photos.")
        assert (tmp_path / "scene.adapt.npz").is_file()
        first = json.loads((table.data_dir / "teaching" / "manifest.json").read_text())[0]
        assert len(first["dice"]) == 7 and first["dice"][0]["value"] == 6
        assert [d["box"] is None for d in first["dice"]].count(True) == 1
        assert table.state()["camera"]["learned_from"] == 3
        tv.goto("/")
        expect(tv.locator("#camera-status")).to_contain_text(
            "taught on 3 photos of this table")
    finally:
        table.profile = previous
