"""Teaching a table profile its own reader: labelled photos of the table in, a profile whose
``[reader] table_head`` names a head fitted on them out (``vision.adapt``). Used by
``bluffcam adapt`` and by the calibration page's "Teach the camera".

The head is written beside the profile as ``<stem>.adapt.npz``; the profile keeps the base
profile's settings (or is a minimal one covering the whole picture, where there is none),
its ``[dice] size_px`` refined from the labelled dice (``bluffcam.die_size``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bluffcam.die_size import SizeRefinement, refine_size
from calibration import Profile, load_profile, save_profile
from calibration.profile import DiceConfig, profile_from_dict
from vision.adapt import ReadPhoto, fit_head, general_params, read_photos
from vision.bench import Entry, load_manifest
from vision.die_sizes import labelled_sizes, most_common_resolution
from vision.io import ImageLoadError
from vision.params import ReaderParams
from vision.table_head import TableHead
from vision.table_score import outcome


class AdaptInputError(ValueError):
    """Labelled photos that cannot teach a table (a missing photo, labels that do not parse,
    no dice): the message names what is wrong."""


@dataclass(frozen=True)
class Adapted:
    """What an adaptation wrote and learned."""

    profile: Path
    head_file: Path
    head: TableHead
    seconds: float
    #: the profile's ``[dice] size_px`` as learned (None: the profile has no ``[dice]``)
    size: SizeRefinement | None = None
    #: photos on which the reader found every labelled die and no other (``None``: not
    #: counted). The head decides values and sureness, not where dice are: a photo with a die
    #: missed or one too many goes to review however the head is taught, so the table's owner
    #: is told how many there were (the light, the camera's height or a busy cloth)
    found_whole: int | None = None

    def summary(self) -> str:
        """One line for the command's output."""
        h = self.head
        size = f"; {self.size.note}" if self.size is not None else ""
        found = ("" if self.found_whole is None else
                 f"; every die found on {self.found_whole} of {h.photos}")
        layer = ("no feature layer" if h.feature_layer is None
                 else f"feature layer {h.feature_layer.min_odds:g}")
        return (f"adapted {self.profile} from {h.photos} photo{'s' * (h.photos != 1)} "
                f"({h.dice} dice) in {self.seconds:.1f} s: die {h.die_px:.0f} px; sure from "
                f"value odds {h.min_value_odds:g}, detector score {h.min_score:g}, smear "
                f"balance {h.min_balance:g}, {layer}{found}; head {self.head_file.name}{size}")


def head_path(profile: Path) -> Path:
    """Where the head of the profile at ``profile`` is written: beside it."""
    return profile.with_name(profile.stem + ".adapt.npz")


def labelled_photos(manifests: Sequence[str | os.PathLike[str]]
                    ) -> list[tuple[Path, list[Entry]]]:
    """Each manifest's folder and entries, every photo checked to be there; AdaptInputError
    naming a manifest that does not parse, a photo missing, or photos with no die at all."""
    out = []
    for manifest in manifests:
        try:
            root, entries = load_manifest(Path(manifest))
        except ValueError as exc:
            raise AdaptInputError(str(exc)) from exc
        for entry in entries:
            if not (root / entry.image).is_file():
                raise AdaptInputError(f"{manifest}: photo {entry.image} is missing "
                                      f"(looked for {root / entry.image})")
        out.append((root, entries))
    if not any(e.dice for _, entries in out for e in entries):
        raise AdaptInputError(f"{', '.join(map(str, manifests))}: no labelled die in any "
                              "photo: nothing to learn the table from")
    return out


def adapt_profile(manifests: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                  base: str | os.PathLike[str] | None = None, *,
                  before_each: Callable[[], None] | None = None) -> Adapted:
    """Fit this table's head on the manifests' photos and write the profile ``out`` (the
    base profile's settings kept, its die size refined: `refined_dice`) and its head beside
    it. ``before_each`` is called before each photo is read (`serve`'s re-learning waits
    there while the camera reads a reveal). AdaptInputError names bad input; a base profile
    that does not load raises its own ProfileError (a ValueError)."""
    start = time.perf_counter()
    base_profile = load_profile(base) if base is not None else None
    labelled = [(root, entry) for root, entries in labelled_photos(manifests)
                for entry in entries]
    params = general_params(base_profile.reader_params if base_profile else ReaderParams())
    photos = _read(labelled, params, before_each)
    out_path = Path(out)
    head_file = head_path(out_path)
    profile = base_profile or minimal_profile(out_path, photos)
    profile, size = refined_dice(profile, photos)
    if size.old is None and size.size is not None:
        # the table's reader now reads at the scale of its dice: the head learns its looks so
        photos = _read(labelled, general_params(profile.reader_params), before_each)
    head = fit_head(photos)
    reader = {k: v for k, v in profile.reader.items() if k != "table_head"}
    reader["table_head"] = head_file.name
    out_path.parent.mkdir(parents=True, exist_ok=True)
    _save_head(head, head_file)
    save_profile(replace(profile, reader=reader, path=out_path), out_path)
    found_whole = sum(outcome(p.entry, p.reading).all_found for p in photos)
    return Adapted(out_path, head_file, head, time.perf_counter() - start, size, found_whole)


def _read(labelled: Sequence[tuple[Path, Entry]], params: ReaderParams,
          before_each: Callable[[], None] | None) -> list[ReadPhoto]:
    """The labelled photos read with ``params``, ``before_each`` called before each one;
    AdaptInputError names a photo that cannot be read."""
    photos: list[ReadPhoto] = []
    try:
        for root, entry in labelled:
            if before_each is not None:
                before_each()
            photos += read_photos(root, [entry], params)
    except ImageLoadError as exc:
        raise AdaptInputError(str(exc)) from exc
    return photos


def refined_dice(profile: Profile, photos: Sequence[ReadPhoto]
                 ) -> tuple[Profile, SizeRefinement]:
    """``profile`` with its ``[dice] size_px`` refined (or first set) from the photos'
    labelled dice (`bluffcam.die_size.refine_size`), and what was decided."""
    old = profile.dice.size_px if profile.dice is not None else None
    size = refine_size(old, labelled_sizes(photos, profile.resolution))
    if not size.changed or size.size is None:
        return profile, size
    dice = (DiceConfig(size.size) if profile.dice is None
            else replace(profile.dice, size_px=size.size))
    return replace(profile, dice=dice), size


def minimal_profile(path: Path, photos: Sequence[ReadPhoto]) -> Profile:
    """A profile whose table and one seat cover the whole picture of the photos' most
    common size: what ``bluffcam read --profile`` needs, for a table not calibrated yet."""
    width, height = most_common_resolution(photos) or (640, 480)
    whole = [[0.0, 0.0], [float(width), 0.0], [float(width), float(height)],
             [0.0, float(height)]]
    return profile_from_dict({
        "name": path.stem, "camera": {"spec": "opencv:0", "resolution": [width, height]},
        "table": {"area": whole}, "seats": [{"name": "Seat 1", "zone": whole}],
    }, path=path)


def _save_head(head: TableHead, path: Path) -> None:
    """The head written whole or not at all."""
    part = path.with_name(path.name + ".part")
    head.save(part)
    os.replace(part, path)
