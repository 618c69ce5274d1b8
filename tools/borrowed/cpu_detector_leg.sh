#!/bin/bash
# One leg of the long detector run on the development machine's CPU, for sessions lent no GPU
# (docs/vision_detector.md, "A long run over short GPU loans"). The same run as
# tools/borrowed/gpu_detector_run.sh's legs: the same renders (made in .cache as the recipe there
# says, the same 1,500 scenes in the same order), the same checkpoint (.gpu/run.pt), so legs
# on either machine continue one another; the trainer refuses a checkpoint of other settings.
#   usage: tools/borrowed/cpu_detector_leg.sh MINUTES [trainer options...]
#   e.g.   tools/borrowed/cpu_detector_leg.sh 140 --steps 24000 --stop-after 20000 --deep-widths 128 192
# Trains at low priority for MINUTES (the trainer's --pause-after; end it before anything
# timed runs), writing the checkpoint at every export and when it pauses. Leaves the export
# and the log in .gpu/cpu_leg. Without a checkpoint it refuses unless START_FRESH=1. A dry run
# elsewhere, leaving the run's checkpoint alone (it makes the 1,500 renders first if missing):
#   START_FRESH=1 LEG_DIR=/tmp/leg tools/borrowed/cpu_detector_leg.sh 0.2 --batch 4 --steps 40
set -eu
MINUTES=$1; shift
PY=${PY:-.venv/bin/python}
DIR=${LEG_DIR:-.gpu}
RESUME=()
if [ -f "$DIR/run.pt" ]; then RESUME=(--resume "$DIR/run.pt")
elif [ "${START_FRESH:-0}" != 1 ]; then
  echo "no checkpoint $DIR/run.pt: START_FRESH=1 starts the run from step 1" >&2
  exit 2
fi
mkdir -p .cache
# the renders tool makes only the scenes a folder lacks (one cut off part way goes on), so
# it runs every time; a leg on a partial set would be refused (another photo count)
pids=()
for start in 0 750; do
  half=$([ "$start" = 0 ] && echo a || echo b)
  $PY -m tools.render.detector_renders ".cache/renders_$half" --count 750 --start "$start" \
    >>".cache/renders_$half.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "renders failed: see .cache/renders_*.log" >&2; exit 1; }
done
mkdir -p "$DIR/cpu_leg"
export OMP_NUM_THREADS=2 PYTHONUNBUFFERED=1
nice -n 10 $PY -m tools.train.train_dice_detector .gpu/data/manifest.json \
  --renders .cache/renders_a/manifest.json --renders .cache/renders_b/manifest.json \
  --batch 64 --workers 1 --threads 2 --device cpu --export-every 1000 \
  --checkpoint "$DIR/run.pt" --pause-after "$MINUTES" --out "$DIR/cpu_leg/dice_detector.onnx" \
  "${RESUME[@]}" "$@" >>"$DIR/cpu_leg/train.log" 2>&1 || status=$?
tail -n 2 "$DIR/cpu_leg/train.log"
exit "${status:-0}"
