"""./run's picamera2 check after set-up, driven with stand-in Pythons (no Pi here): where the
system has picamera2 and the venv cannot import it, ./run prints why and the fix."""

from __future__ import annotations

import subprocess
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "run"


def _fake_python(path: Path, *, finds_picamera2: bool, import_error: str | None) -> Path:
    """A `python` answering ./run's two questions: is picamera2 there (find_spec), and does
    the venv import it (``-m hardware.camera_errors``)."""
    message = path.with_suffix(".message")
    message.write_text(import_error or "", encoding="utf-8")
    import_branch = (f'cat "{message}" >&2; exit 1' if import_error
                     else 'echo "picamera2 imports in this Python" >&2; exit 0')
    path.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f'  *find_spec*) exit {0 if finds_picamera2 else 1} ;;\n'
        f'  *hardware.camera_errors*) {import_branch} ;;\n'
        '  *) echo "unexpected: $*" >&2; exit 99 ;;\n'
        "esac\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def _check(tmp_path: Path, *, finds: bool, error: str | None) -> subprocess.CompletedProcess[str]:
    python = _fake_python(tmp_path / "python", finds_picamera2=finds, import_error=error)
    script = f'PYTHON={python}; source "{RUN}"; PY={python}; check_picamera2 {python}'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30,
                          check=False)


def test_a_venv_that_cannot_import_picamera2_prints_the_fix(tmp_path: Path) -> None:
    fix = "picamera2 cannot be imported: ... `.venv/bin/pip install --upgrade simplejpeg`"
    result = _check(tmp_path, finds=True, error=fix)
    assert result.returncode == 1
    assert fix in result.stderr and "will not open until that is fixed" in result.stderr


def test_a_venv_that_imports_picamera2_passes(tmp_path: Path) -> None:
    result = _check(tmp_path, finds=True, error=None)
    assert result.returncode == 0 and "will not open" not in result.stderr


def test_off_a_pi_nothing_is_checked(tmp_path: Path) -> None:
    result = _check(tmp_path, finds=False, error="would fail")
    assert result.returncode == 0 and result.stderr == ""


def test_sourcing_run_defines_functions_without_running_a_command(tmp_path: Path) -> None:
    result = subprocess.run(["bash", "-c", f'source "{RUN}"; type -t setup_venv'],
                            capture_output=True, text=True, timeout=30, check=False,
                            cwd=tmp_path)
    assert result.stdout.strip() == "function" and not (tmp_path / ".venv").exists()


def test_the_camera_errors_module_names_the_fix_for_a_missing_picamera2() -> None:
    """The real ``-m hardware.camera_errors`` that ./run calls, here where there is no
    picamera2: it exits 1 with the apt fix."""
    import sys

    result = subprocess.run([sys.executable, "-c", "import sys; sys.modules['picamera2'] = "
                             "None; from hardware.camera_errors import main; "
                             "raise SystemExit(main())"],
                            capture_output=True, text=True, timeout=60, check=False,
                            cwd=RUN.parent)
    assert result.returncode == 1
    assert "sudo apt install python3-picamera2" in result.stderr
