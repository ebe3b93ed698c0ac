#!/usr/bin/env bash
# detect-batch kill -9 + rerun on the shipped models: N MuSHROOM dev rows (default 20), one
# uninterrupted run, one run killed after K rows (default 8) and rerun; the two outputs must be
# byte-identical. Usage: scripts/detect_batch_resume.sh [N] [K]   (from the repository root)
set -euo pipefail
N=${1:-20}
K=${2:-8}
D=$(mktemp -d)
ENOKI=.venv/bin/enoki
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
.venv/bin/python - "$D/rows.jsonl" "$N" <<'PY'
import json, os, sys
from enoki_hd.eval.datasets import load_benchmark
bench = load_benchmark("mushroom_dev30", os.environ.get("ENOKI_SHARED_DIR", "../shared"))
with open(sys.argv[1], "w") as f:
    for i, e in enumerate(bench.examples[: int(sys.argv[2])]):
        row = {"id": f"m{i}", "answer": e.answer, "context": e.context, "question": e.question}
        f.write(json.dumps(row) + "\n")
PY
run() { $ENOKI detect-batch --input "$D/rows.jsonl" --out "$1" --no-progress; }
s=$(date +%s.%N); run "$D/full.jsonl" 2> "$D/full.err" || true; e=$(date +%s.%N)
echo "uninterrupted: $(echo "$e - $s" | bc) s; $(tail -1 "$D/full.err")"
$ENOKI detect-batch --input "$D/rows.jsonl" --out "$D/killed.jsonl" --no-progress 2>/dev/null &
pid=$!  # enoki itself (not a subshell), so that kill -9 ends the job
while [ "$(cat "$D/killed.jsonl" 2>/dev/null | wc -l)" -lt "$K" ]; do sleep 0.2; done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
echo "killed after $(wc -l < "$D/killed.jsonl") rows"
s=$(date +%s.%N); run "$D/killed.jsonl" 2> "$D/rerun.err" || true; e=$(date +%s.%N)
echo "rerun: $(echo "$e - $s" | bc) s; $(tail -1 "$D/rerun.err")"
cmp "$D/full.jsonl" "$D/killed.jsonl"
echo "byte-identical: yes ($(wc -l < "$D/full.jsonl") lines, sha256 $(sha256sum "$D/full.jsonl" | cut -c1-16))"
rm -rf "$D"
