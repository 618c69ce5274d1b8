"""How the detector's and the classifier's reads of one die make its value and doubt."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.detector import Candidate
from vision.dice.detected import (
    CLASSIFIER_MIN_ODDS,
    CLASSIFIERS_OVERRULE,
    DETECTOR_WEIGHT_IN_DISPUTE,
    _die,
    classifiers_overrule,
    value_verdict,
)
from vision.params import ReaderParams


def odds(**by_face: float) -> np.ndarray:
    """Probabilities of faces 1..6, the rest of the mass spread over the other faces."""
    p = np.zeros(6)
    for face, prob in by_face.items():
        p[int(face[1:]) - 1] = prob
    rest = [k for k in range(6) if p[k] == 0]
    p[rest] = (1 - p.sum()) / len(rest)
    return p


def test_agreeing_looks_give_their_value_and_pooled_odds() -> None:
    value, prob, agree = value_verdict(odds(f5=0.8), odds(f5=0.9))
    assert (value, agree) == (5, True)
    assert 0.8 <= prob <= 0.9  # a consensus, not the product's overconfidence


def test_in_a_dispute_a_sure_classifier_outweighs_a_detector_sure_of_another_value() -> None:
    # the detector's typical miss on small coloured dice: a 6 read as a 4
    detector, classifier = odds(f4=0.7, f6=0.02), odds(f6=0.95, f4=0.04)
    value, _, agree = value_verdict(detector, classifier)
    assert (value, agree) == (6, False)


def test_in_a_dispute_a_sure_detector_outweighs_an_unsure_classifier() -> None:
    value, _, agree = value_verdict(odds(f4=0.9), odds(f6=0.4, f4=0.35))
    assert (value, agree) == (4, False)


def test_a_dispute_pooled_above_the_bar_is_still_never_sure() -> None:
    """The agreement rule on its own: the looks' pooled odds clear both bars (derived from
    the bars, so that raising them cannot quietly make the odds, not the dispute, the
    doubt), and only their disagreement keeps the die for review."""
    params = ReaderParams()
    bar = max(params.min_value_odds, params.min_confidence)
    w = DETECTOR_WEIGHT_IN_DISPUTE
    detector_six = 0.49  # the detector favours a 4 (0.5), a 6 a close second
    reach = w * detector_six + (1 - w) * 1.0  # the most a dispute over the 6 can pool
    assert reach > bar, f"no dispute pools above the bar {bar}: test the rule another way"
    target = (bar + reach) / 2
    classifier_six = (target - w * detector_six) / (1 - w)
    detector = odds(f4=0.5, f6=detector_six)
    classifier = odds(f6=classifier_six)
    value, pooled, agree = value_verdict(detector, classifier)
    assert (value, agree) == (6, False) and pooled > bar
    proposal = Candidate(100.0, 80.0, 30.0, 0.99, detector.astype(np.float32))
    second = np.concatenate([[0.0], classifier]).astype(np.float32)
    die = _die(proposal, second, params)
    assert die is not None and die.value == 6
    assert die.confidence < params.min_confidence
    # the same classifier with a detector that agrees makes a sure die: the dispute did it
    agreeing = replace(proposal, values=odds(f6=0.5, f4=0.49).astype(np.float32))
    sure = _die(agreeing, second, params)
    assert sure is not None and sure.value == 6 and sure.confidence >= params.min_confidence


@pytest.mark.parametrize("score", [0.6, 0.95])
def test_a_disputed_die_is_reported_but_never_sure(score: float) -> None:
    params = ReaderParams()
    proposal = Candidate(100.0, 80.0, 30.0, score, odds(f4=0.7, f6=0.02).astype(np.float32))
    classifier = np.concatenate([[0.01], odds(f6=0.95) * 0.99]).astype(np.float32)
    die = _die(proposal, classifier, params)
    assert die is not None and die.value == 6
    assert die.confidence < params.min_confidence


def test_agreeing_sure_looks_make_a_sure_die() -> None:
    params = ReaderParams()
    proposal = Candidate(100.0, 80.0, 30.0, 0.9, odds(f6=0.9).astype(np.float32))
    classifier = np.concatenate([[0.01], odds(f6=0.97) * 0.99]).astype(np.float32)
    die = _die(proposal, classifier, params)
    assert die is not None and die.value == 6 and die.confidence >= params.min_confidence


def _agreeing_die(detector: float, classifier: float, params: ReaderParams) -> float:
    """The confidence of a strong proposal both looks read as a 6, at these odds."""
    proposal = Candidate(100.0, 80.0, 30.0, 0.95, odds(f6=detector).astype(np.float32))
    second = np.concatenate([[0.01], odds(f6=classifier) * 0.99]).astype(np.float32)
    die = _die(proposal, second, params)
    assert die is not None and die.value == 6
    return die.confidence


def test_agreeing_looks_lukewarm_about_the_value_leave_the_die_unsure() -> None:
    # pooled odds of about 0.65: both looks favour the 6, neither is sure of it
    params = ReaderParams()
    assert _agreeing_die(0.6, 0.7, params) < params.min_confidence
    # the same die with the bar off is sure: the bar, not presence, made the doubt
    unbarred = ReaderParams(min_value_odds=0.0)
    assert _agreeing_die(0.6, 0.7, unbarred) >= unbarred.min_confidence


def test_agreeing_looks_at_the_bar_make_a_sure_die() -> None:
    # pooled odds just over the bar (0.8) make a sure die; just under it they go to review,
    # where the earlier bar of 0.7 made them sure (docs/lab-notebook.md, 2026-11-26, "The
    # value odds bar raised to 0.8")
    params = ReaderParams()
    assert _agreeing_die(0.85, 0.9, params) >= params.min_confidence
    assert _agreeing_die(0.75, 0.8, params) < params.min_confidence
    assert _agreeing_die(0.75, 0.8, replace(params, min_value_odds=0.7)) >= params.min_confidence


def test_min_value_odds_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="min_value_odds"):
        ReaderParams(min_value_odds=1.5)


def by_net(*favourites: tuple[int, float]) -> np.ndarray:
    """Each classifier network's (7,) probabilities: "not a die" 0.01, then faces 1..6 with
    ``face`` at ``prob``."""
    return np.stack([np.concatenate([[0.01], odds(**{f"f{face}": prob}) * 0.99])
                     for face, prob in favourites]).astype(np.float32)


def disputed_die(networks: np.ndarray, score: float = 0.95) -> tuple[int, float]:
    """(value, confidence) of a strong proposal the detector reads as a 4, where the
    classifier's networks read ``networks``."""
    params = ReaderParams()
    proposal = Candidate(100.0, 80.0, 30.0, score, odds(f4=0.7, f6=0.02).astype(np.float32))
    pooled = np.exp(np.log(networks).mean(axis=0))
    die = _die(proposal, (pooled / pooled.sum()).astype(np.float32), params, networks)
    assert die is not None
    return die.value, die.confidence


def test_both_classifier_networks_sure_of_one_value_settle_a_dispute() -> None:
    # the demo's coloured 6s: the detector reads a 4, each classifier network a sure 6
    value, confidence = disputed_die(by_net((6, 0.97), (6, 0.95)))
    assert value == 6 and confidence >= ReaderParams().min_confidence


@pytest.mark.parametrize("networks", [
    by_net((6, 0.97), (6, CLASSIFIERS_OVERRULE - 0.05)),  # one network unsure
    by_net((6, 0.97), (5, 0.95)),  # the networks name different values
    by_net((6, 0.99)),  # one network alone is not two looks
])
def test_a_dispute_stays_for_review_unless_every_network_is_sure(networks: np.ndarray) -> None:
    assert not classifiers_overrule(networks)
    _, confidence = disputed_die(networks)
    assert confidence < ReaderParams().min_confidence


def test_a_settled_dispute_still_needs_a_sure_proposal() -> None:
    params = ReaderParams()
    _, confidence = disputed_die(by_net((6, 0.97), (6, 0.95)), score=params.detector_min_score)
    assert confidence < params.min_confidence


def test_a_sure_proposal_the_classifier_calls_no_die_is_kept_for_review() -> None:
    """Only a weak proposal the classifier doubts is dropped; a sure one goes to a person."""
    params = ReaderParams()
    proposal = Candidate(100.0, 80.0, 30.0, params.detector_sure, odds(f6=0.9).astype(np.float32))
    second = np.concatenate([[0.6], odds(f6=0.9) * 0.4]).astype(np.float32)
    die = _die(proposal, second, params)
    assert die is not None and die.value == 6
    assert die.confidence < params.min_confidence
    weak = replace(proposal, score=(params.detector_min_score + params.detector_sure) / 2)
    assert _die(weak, second, params) is None


def test_agreeing_looks_exactly_at_the_bar_make_a_sure_die_where_it_lies() -> None:
    detector, classifier = odds(f6=0.9), odds(f6=0.95)
    _, pooled, agree = value_verdict(detector, classifier)
    assert agree
    params = replace(ReaderParams(), min_value_odds=pooled, min_confidence=min(pooled, 0.6))
    proposal = Candidate(120.0, 70.0, 30.0, 0.99, detector.astype(np.float32))
    die = _die(proposal, np.concatenate([[0.0], classifier]).astype(np.float32), params)
    assert die is not None and die.confidence >= params.min_confidence
    assert (die.x, die.y) == (120.0, 70.0)


def test_a_dispute_over_looks_that_sum_below_one_is_renormalised() -> None:
    first, look = odds(f4=0.9), odds(f6=0.6, f4=0.3) * 0.5
    value, prob, agree = value_verdict(first, look)
    mixed = DETECTOR_WEIGHT_IN_DISPUTE * first + (1 - DETECTOR_WEIGHT_IN_DISPUTE) * look
    assert (value, agree) == (4, False)
    assert prob == pytest.approx(mixed[3] / mixed.sum(), rel=1e-9)


def test_networks_exactly_at_the_overrule_odds_overrule() -> None:
    at_bar = np.zeros((2, 7))
    at_bar[:, 6] = CLASSIFIERS_OVERRULE
    at_bar[:, 1:6] = (1 - CLASSIFIERS_OVERRULE) / 5
    assert classifiers_overrule(at_bar)


def test_presence_runs_from_none_to_sure() -> None:
    from vision.dice.detected import presence

    params = ReaderParams()
    assert presence(params.detector_min_score / 2, params) == 0.0
    assert presence(params.detector_sure, params) == 1.0
    assert presence(1.0, params) == 1.0


def test_a_certain_detector_and_a_classifier_that_only_leans_its_way_make_no_sure_die() -> None:
    """tomitomi3's black twos: the detector certain of a 3, the classifier leaning to 3 at
    about one half; pooled, the two cleared every bar and the die was read as a sure 3."""
    params = ReaderParams()
    proposal = Candidate(64.0, 64.0, 60.0, 0.99, odds(f3=0.9999).astype(np.float32))
    lean = CLASSIFIER_MIN_ODDS - 0.05
    second = np.concatenate([[0.03], odds(f3=lean, f2=0.2) * 0.97]).astype(np.float32)
    _, pooled, agree = value_verdict(proposal.values, second[1:])
    assert agree and pooled >= params.min_value_odds  # the pool alone would call it sure
    die = _die(proposal, second, params)
    assert die is not None and die.value == 3
    assert die.confidence < params.min_confidence
    # the same detector with a classifier that names the 3 on its own: sure
    firm = np.concatenate([[0.03], odds(f3=CLASSIFIER_MIN_ODDS + 0.1) * 0.97]).astype(np.float32)
    sure = _die(proposal, firm, params)
    assert sure is not None and sure.value == 3 and sure.confidence >= params.min_confidence
