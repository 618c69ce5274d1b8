"""tools.bench.with_classifier: a bluffcam command run with a candidate photos classifier."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.bench.with_classifier import main, use_classifier
from vision import learned


@pytest.fixture
def restored_nets():  # type: ignore[no-untyped-def]
    before = list(learned.NETS)
    yield
    learned.NETS[:] = before


@pytest.mark.usefixtures("restored_nets")
def test_the_first_network_is_swapped_and_the_renders_network_kept(tmp_path: Path) -> None:
    candidate = tmp_path / "candidate.onnx"
    candidate.write_bytes(learned.MODEL_PATH.read_bytes())
    renders = learned.NETS[1]
    use_classifier(candidate)
    assert learned.NETS[0].path == candidate
    assert learned.NETS[1] is renders


@pytest.mark.usefixtures("restored_nets")
def test_a_missing_candidate_is_named_and_nothing_is_swapped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = list(learned.NETS)
    missing = tmp_path / "nope.onnx"
    assert main([str(missing), "bench-vision", "x.json"]) == 2
    assert str(missing) in capsys.readouterr().err
    assert before == learned.NETS


@pytest.mark.usefixtures("restored_nets")
def test_the_renders_network_is_swapped_where_asked_and_a_dash_keeps_the_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    candidate = tmp_path / "renders.onnx"
    candidate.write_bytes(learned.MODEL_PATHS[1].read_bytes())
    photos = learned.NETS[0]
    # bench-vision refuses a missing manifest, after the networks are swapped
    missing = tmp_path / "none.json"
    assert main(["-", "--renders", str(candidate), "bench-vision", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
    assert learned.NETS[0] is photos
    assert learned.NETS[1].path == candidate


@pytest.mark.usefixtures("restored_nets")
def test_a_missing_renders_candidate_swaps_neither_network(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    candidate = tmp_path / "photos.onnx"
    candidate.write_bytes(learned.MODEL_PATH.read_bytes())
    before = list(learned.NETS)
    missing = tmp_path / "nope.onnx"
    assert main([str(candidate), "--renders", str(missing), "bench-vision", "x.json"]) == 2
    assert str(missing) in capsys.readouterr().err
    assert before == learned.NETS


@pytest.mark.parametrize("argv", [[], ["-"], ["-", "--renders", "x.onnx"],
                                  ["a.onnx", "--renders"]])
def test_no_command_is_a_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "usage" in capsys.readouterr().err
