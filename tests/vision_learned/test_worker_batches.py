"""Batches made in worker processes (tools.train.train_dice_detector.planned_batch): each batch
comes from its own seed, so a run gives the same batches however many workers make them."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator

import numpy as np
import pytest

import tools.train.train_dice_detector as training
from tools.train.train_dice_detector import WINDOW, BatchPlan, Sample, planned_batch, prefetched


def _sample(seed: int) -> Sample:
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 255, (300, 400, 3)).astype(np.uint8)
    dice = np.array([[120.0, 90.0, 30.0, 4, True, False], [300.0, 200.0, 24.0, 2, True, False]])
    return Sample(image, 1.0, 0.8, dice, "render")


@pytest.fixture
def plan() -> Iterator[BatchPlan]:
    pool = [_sample(1), _sample(2)]
    plan = BatchPlan(pool, np.array([0.5, 0.5]), size=3, seed=11,
                     options=(0.33, 0.0, 0.0, 1.0, 0.0))
    training._set_plan(plan)
    yield plan
    training._set_plan(None)


def test_a_batch_is_the_same_each_time_it_is_drawn(plan: BatchPlan) -> None:
    first, again = planned_batch(5), planned_batch(5)
    assert len(first) == 6
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_batches_of_other_steps_differ(plan: BatchPlan) -> None:
    assert not np.array_equal(planned_batch(1)[0], planned_batch(2)[0])


def test_windows_come_back_as_uint8_pixels_with_their_maps(plan: BatchPlan) -> None:
    windows, heat, weight, value_label, size, size_mask = planned_batch(3)
    assert windows.shape == (3, WINDOW, WINDOW, 3) and windows.dtype == np.uint8
    assert heat.shape == weight.shape == value_label.shape == size.shape == size_mask.shape
    assert heat.shape[0] == 3


def test_worker_processes_give_the_batches_made_in_process(plan: BatchPlan) -> None:
    here = [planned_batch(step) for step in (1, 2, 3, 4)]
    with multiprocessing.get_context("fork").Pool(2) as workers:
        there = list(workers.imap(planned_batch, (1, 2, 3, 4)))
    for mine, theirs in zip(here, there, strict=True):
        for a, b in zip(mine, theirs, strict=True):
            np.testing.assert_array_equal(a, b)


class _CountingPool:
    """A stand-in for a process pool that runs each job at once and remembers how many
    results were asked for but not yet taken."""

    def __init__(self) -> None:
        self.made = 0
        self.taken = 0
        self.most_waiting = 0

    def apply_async(self, fn: object, args: tuple[int]) -> _CountingPool._Result:
        self.made += 1
        self.most_waiting = max(self.most_waiting, self.made - self.taken)
        return _CountingPool._Result(self, planned_batch(*args))

    class _Result:
        def __init__(self, pool: _CountingPool, value: tuple[np.ndarray, ...]) -> None:
            self.pool, self.value = pool, value

        def get(self) -> tuple[np.ndarray, ...]:
            self.pool.taken += 1
            return self.value


def test_prefetched_batches_come_in_step_order_with_few_made_ahead(plan: BatchPlan) -> None:
    pool = _CountingPool()
    got = []
    for batch in prefetched(pool, range(1, 8), depth=3):
        got.append(batch)
        assert pool.made - pool.taken <= 3  # never more than depth waiting
    assert pool.most_waiting == 3 and len(got) == 7
    for step, batch in zip(range(1, 8), got, strict=True):
        for a, b in zip(planned_batch(step), batch, strict=True):
            np.testing.assert_array_equal(a, b)


def test_prefetched_runs_in_a_real_process_pool(plan: BatchPlan) -> None:
    with multiprocessing.get_context("fork").Pool(2) as workers:
        there = list(prefetched(workers, range(1, 5), depth=2))
    for step, batch in zip(range(1, 5), there, strict=True):
        np.testing.assert_array_equal(planned_batch(step)[0], batch[0])
