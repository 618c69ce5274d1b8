"""`bluffcam read` on bad input: an --annotate folder that is a file, two photos of the same
name, an annotation that cannot be written, and a photo that comes down a pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from bluffcam.cli import main
from bluffcam.commands.read import annotation_names
from vision import Reading, load_image

ROOT = Path(__file__).resolve().parents[2]


def photo(path: Path, width: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), np.full((width * 3 // 4, width, 3), 90, np.uint8))
    return path


def test_an_annotate_folder_that_is_a_file_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "afile"
    taken.write_text("keep me")
    assert main(["read", str(photo(tmp_path / "x.jpg", 160)), "--annotate", str(taken)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and "afile: exists and is not a folder" in out.err
    assert taken.read_text() == "keep me"


def test_photos_of_the_same_name_from_two_folders_get_an_annotation_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = photo(tmp_path / "a" / "x.jpg", 160)
    second = photo(tmp_path / "b" / "x.png", 320)
    lone = photo(tmp_path / "b" / "y.png", 240)
    out_dir = tmp_path / "ann"
    assert main(["read", str(first), str(second), str(lone), "--annotate", str(out_dir)]) == 0
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "x-2.annotated.png", "x.annotated.png", "y.annotated.png"]
    assert load_image(out_dir / "x.annotated.png").shape[1] == 160
    assert load_image(out_dir / "x-2.annotated.png").shape[1] == 320
    assert capsys.readouterr().err == ""


def test_annotation_names_keep_the_plain_name_where_nothing_clashes() -> None:
    assert annotation_names(["a/x.jpg", "b/y.png"]) == ["x.annotated.png", "y.annotated.png"]
    assert annotation_names(["a/x.jpg", "b/x.png", "c/x-2.jpg", "d/x.jpg"]) == [
        "x.annotated.png", "x-3.annotated.png", "x-2.annotated.png", "x-4.annotated.png"]


def test_an_annotation_that_cannot_be_written_is_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_name = photo(tmp_path / ("d" * 248 + ".jpg"), 160)  # its annotation's name is too long
    assert main(["read", str(long_name), "--annotate", str(tmp_path / "ann")]) == 1
    out = capsys.readouterr()
    assert out.out.count("\n") == 1  # the reading itself is still printed
    assert "cannot write the annotated image" in out.err and "Traceback" not in out.err


def test_an_image_is_read_from_a_pipe(tmp_path: Path) -> None:
    data = photo(tmp_path / "x.png", 160).read_bytes()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    try:
        image = load_image(fifo)
    finally:
        writer.join(timeout=10)
    assert image.shape == (120, 160, 3)


def test_bluffcam_read_reads_standard_input(tmp_path: Path) -> None:
    data = photo(tmp_path / "x.jpg", 160).read_bytes()
    done = subprocess.run([sys.executable, "-m", "bluffcam", "read", "/dev/stdin"], input=data,
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert b'"image": "/dev/stdin", "dice": []' in done.stdout


def test_a_photo_is_read_as_a_crop_only_with_crop(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[bool] = []

    def reader(image: np.ndarray, params: object = None, *, crop: bool = False) -> Reading:
        told.append(crop)
        return Reading((), image.shape[1], image.shape[0])

    monkeypatch.setattr(vision, "read_dice", reader)
    small = str(photo(tmp_path / "die.png", 96))
    assert main(["read", small]) == 0 and main(["read", small, "--crop"]) == 0
    assert told == [False, True]
    assert [json.loads(line)["dice"] for line in capsys.readouterr().out.splitlines()] == [[], []]
