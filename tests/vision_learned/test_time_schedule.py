"""The time-set learning rate schedule (tools.train.train_dice_detector.one_cycle_lr, ``--minutes``)
follows PyTorch's OneCycleLR, so a run set by device time trains like one set by steps."""

from __future__ import annotations

import pytest

from tools.train.train_dice_detector import one_cycle_lr


def test_it_matches_pytorchs_one_cycle_at_every_step() -> None:
    torch = pytest.importorskip("torch")
    steps, peak = 200, 2e-3
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=peak)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=peak, total_steps=steps,
                                                pct_start=0.1, cycle_momentum=False)
    for step in range(steps):
        expected = opt.param_groups[0]["lr"]
        # PyTorch places the peak at step pct_start * total - 1 and the end at total - 1
        warm_end = 0.1 * steps - 1
        progress = (step / warm_end * 0.1 if step <= warm_end
                    else 0.1 + (step - warm_end) / (steps - 1 - warm_end) * 0.9)
        assert one_cycle_lr(progress, peak) == pytest.approx(expected, rel=1e-9, abs=1e-15)
        opt.step()
        sched.step()


def test_it_rises_to_the_peak_then_falls_to_almost_nothing() -> None:
    peak = 1e-3
    assert one_cycle_lr(0.0, peak) == pytest.approx(peak / 25)
    assert one_cycle_lr(0.1, peak) == pytest.approx(peak)
    assert one_cycle_lr(1.0, peak) == pytest.approx(peak / 25 / 1e4)
    rates = [one_cycle_lr(p / 100, peak) for p in range(101)]
    assert rates[:11] == sorted(rates[:11])
    assert rates[10:] == sorted(rates[10:], reverse=True)


def test_time_past_the_end_keeps_the_last_rate() -> None:
    assert one_cycle_lr(1.7, 1e-3) == one_cycle_lr(1.0, 1e-3)
    assert one_cycle_lr(-0.2, 1e-3) == one_cycle_lr(0.0, 1e-3)
