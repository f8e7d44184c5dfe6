#!/usr/bin/env bash
# The reproduce pipeline (make reproduce, reproduce-offline, reproduce-<study>): for each study,
# fetch its data, run it, draw its figures and write its report page, then the index page over
# every study that finished.
#
# Usage: scripts/pipeline.sh CONFIG_DIR OUT_DIR STUDY...
#   each STUDY is a config stem: CONFIG_DIR/STUDY.yaml runs into OUT_DIR/STUDY$SUFFIX.
# Environment (the Makefile sets them): ORDAUC (the command, default .venv/bin/ordauc), JOBS
# (default 1), PROFILE (default paper), SUFFIX, RUN_FLAGS, FETCH_FLAGS (word-split: options),
# MISSING_DATA (refuse, the default, or skip).
#
# A study that fails at any step (fetch, run exiting above 1, plot, report) is named with its
# step and the pipeline goes on with the next one, so one unreachable host or broken study does
# not cost the others; `ordauc run` exiting 1 means some cells failed and were recorded, which
# is a finished study. An interrupted run (Ctrl-C: 130, SIGTERM: 143) stops the whole pipeline.
# The exit status is 0 when every study and the index page succeeded, else 1.
#
# With MISSING_DATA=skip (make reproduce-offline), a fetch that fails is not a failed study: the
# study runs with `--missing-data skip`, the cells of the datasets it could not get are recorded
# as skipped with the `ordauc fetch` that gets them, and the pipeline's last lines name them.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 CONFIG_DIR OUT_DIR STUDY..." >&2
    exit 2
fi
config_dir=$1
out=$2
shift 2
ordauc=${ORDAUC:-.venv/bin/ordauc}
jobs=${JOBS:-1}
profile=${PROFILE:-paper}
suffix=${SUFFIX:-}
missing_data=${MISSING_DATA:-refuse}
# Word-split on purpose: each holds zero or more command-line options.
read -r -a run_flags <<< "${RUN_FLAGS:-}"
read -r -a fetch_flags <<< "${FETCH_FLAGS:-}"
trap 'echo "pipeline: interrupted" >&2; exit 130' INT TERM

failed=()
partial=()
for study in "$@"; do
    config="$config_dir/$study.yaml"
    dest="$out/$study$suffix"
    echo "== $config -> $dest"
    step=""
    fetched=yes
    if ! "$ordauc" fetch "$config" --quiet ${fetch_flags[@]+"${fetch_flags[@]}"}; then
        fetched=no
    fi
    if [ "$fetched" = no ] && [ "$missing_data" != skip ]; then
        step="fetch"
    else
        if [ "$fetched" = no ]; then
            echo "pipeline: $study: some datasets could not be fetched; running the others" >&2
            partial+=("$study")
        fi
        "$ordauc" run "$config" --out "$dest" --n-jobs "$jobs" --profile "$profile" \
            --missing-data "$missing_data" ${run_flags[@]+"${run_flags[@]}"}
        code=$?
        if [ "$code" -eq 130 ] || [ "$code" -eq 143 ]; then
            echo "pipeline: $study: run interrupted (exit $code); stopping" >&2
            exit "$code"
        elif [ "$code" -gt 1 ]; then
            step="run (exit $code)"
        elif ! "$ordauc" plot "$dest" > /dev/null; then
            step="plot"
        elif ! "$ordauc" report "$dest" > /dev/null; then
            step="report"
        fi
    fi
    if [ -n "$step" ]; then
        echo "pipeline: FAILED $study at $step; going on with the next study" >&2
        failed+=("$study ($step)")
    fi
done

if ! "$ordauc" report "$out"; then
    failed+=("the index page ($out)")
fi
if [ ${#partial[@]} -gt 0 ]; then
    echo "pipeline: ran without the datasets that could not be fetched (their cells recorded" \
         "as skipped, each saying which \`ordauc fetch\` gets it): ${partial[*]}" >&2
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "pipeline: ${#failed[@]} failure(s) over $# studies:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
