#!/bin/bash
# One leg of a long detector run spread over short GPU loans (docs/vision_detector.md, "A long
# run over short GPU loans"). Runs from the repo root on the lent machine, with .gpu carried
# (.gpu/data from `python -m tools.borrowed.gpu_carry`; .gpu/run.pt, if there, the run so far).
#   usage: tools/borrowed/gpu_detector_run.sh OUT MINUTES [trainer options...]
# Makes the 1,500 training renders unless a warm machine still holds them, then trains for
# MINUTES (the trainer's --pause-after) from the newest checkpoint: the one a call before on
# this machine left in /tmp, else .gpu/run.pt; with neither it refuses, unless START_FRESH=1
# (a checkpoint that failed to travel must not restart the run unnoticed). Leaves the
# checkpoint, the export and the log in OUT; copy OUT/run.pt to .gpu/run.pt before the next
# loan. RENDERS_ONLY=1 stops after the renders (a call that carries the checkpoint alone,
# when it and .gpu/data together are over what a call may carry). Trainer options given
# override the ones below (the last wins), so a dry run on a CPU
# (in a checkout without .gpu/run.pt) can be
#   START_FRESH=1 RENDERS_EACH=1 PY=.venv/bin/python tools/borrowed/gpu_detector_run.sh /tmp/o 0.2 \
#       --device cpu --workers 1 --batch 4 --steps 40
set -u
OUT=$1; MINUTES=$2; shift 2
PY=${PY:-python3}
EACH=${RENDERS_EACH:-100}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
t0=$(date +%s)
RESUME=()
if [ -f /tmp/run.pt ]; then RESUME=(--resume /tmp/run.pt)
elif [ -f .gpu/run.pt ]; then cp .gpu/run.pt /tmp/run.pt; RESUME=(--resume /tmp/run.pt)
elif [ "${START_FRESH:-0}" != 1 ]; then
  # a checkpoint that did not travel must not start the run again from step 1 unnoticed
  echo "no checkpoint (/tmp/run.pt, .gpu/run.pt): carry .gpu/run.pt, or START_FRESH=1" >&2
  exit 2
fi
if [ ! -f /tmp/r/r14/manifest.json ] || [ "$EACH" != 100 ]; then
  rm -rf /tmp/r; mkdir -p /tmp/r
  for k in $(seq 0 14); do  # the same 1,500 scenes as the shipped detector's run, 100 per process
    $PY -m tools.render.detector_renders /tmp/r/r$k --count "$EACH" --start $((k * EACH)) \
      >/tmp/r/r$k.log 2>&1 &
  done
  wait
  echo "renders made in $(( $(date +%s) - t0 )) s"
fi
if [ "${RENDERS_ONLY:-0}" = 1 ]; then  # a first call that carries only the checkpoint
  echo "renders in /tmp/r, checkpoint in /tmp/run.pt: the next call on this machine trains"
  exit 0
fi
RENDERS=$(for k in $(seq 0 14); do echo --renders /tmp/r/r$k/manifest.json; done)
# shellcheck disable=SC2086
$PY -m tools.train.train_dice_detector .gpu/data/manifest.json $RENDERS \
  --batch 64 --workers 15 --threads 1 --device cuda --export-every 2000 \
  --checkpoint /tmp/run.pt --pause-after "$MINUTES" --out "$OUT/dice_detector.onnx" \
  "${RESUME[@]}" "$@" 2>&1 | tee "$OUT/train.log" | grep -v "^step [0-9]*[1-9]50:\|^step [0-9]*[0-9][1-9]00:"
cp /tmp/run.pt "$OUT/run.pt"
echo "leg done in $(( $(date +%s) - t0 )) s"
