#!/usr/bin/env bash
# Fuzzes the core with cargo-fuzz (libFuzzer, nightly): seeds each target's
# corpus from the repository's fixtures, then runs each target for SECONDS
# (default 60). A crash — a panic, stack overflow, out-of-memory (over 2 GB)
# or an input that takes over 10 s — ends that target's run and saves the
# input under fuzz/artifacts/<target>/ (`cargo +nightly fuzz tmin <target>
# <file>` shrinks it); the other targets still run, and the script then
# exits 1. Not part of CI (see docs/release.md).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Targets: trace_pipeline trace_text report_rescore config_yaml batch_file span_file.
# FUZZ_SANITIZER=address turns AddressSanitizer on (off by default: the core
# has no unsafe code, and the sanitizer halves the executions per second).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

ALL_TARGETS=(trace_pipeline trace_text report_rescore config_yaml batch_file span_file)
SECONDS_EACH=60
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  SECONDS_EACH=$1
  shift
fi
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "unknown target $t (one of: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

# The largest input each target is given: big enough for every fixture of
# its kind (traces of a few hundred events, the largest reports), small
# enough that an execution takes milliseconds, not seconds.
max_len() {
  case $1 in
    trace_pipeline | batch_file | span_file) echo 262144 ;;
    report_rescore) echo 131072 ;;
    trace_text) echo 65536 ;;
    config_yaml) echo 16384 ;;
  esac
}

# The libFuzzer dictionary of each target (words of its input format).
dict() {
  case $1 in
    config_yaml) echo dict/yaml.dict ;;
    *) echo dict/json.dict ;;
  esac
}

step "nightly toolchain and cargo-fuzz"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked || cargo install cargo-fuzz

CASES=tests/fixtures/conformance/cases
# seed TARGET FILE...: copies each file no larger than the target's max_len
# into its corpus, named by content, so seeding twice adds nothing.
seed() {
  local target=$1 limit dir file sum
  shift
  limit=$(max_len "$target")
  dir=fuzz/corpus/$target
  mkdir -p "$dir"
  for file in "$@"; do
    [[ -f $file && $(stat -c %s "$file") -le $limit ]] || continue
    sum=$(sha1sum "$file" | cut -c1-16)
    [[ -e $dir/seed-$sum ]] || cp "$file" "$dir/seed-$sum"
  done
}

step "seeding fuzz/corpus from the fixtures"
INLINE=$(mktemp -d)
# Inputs no fixture has: red-team records (array and JSON Lines), a
# scorecard, a red-team trace, and event texts in trace_text's format
# (pieces split by 0xFF, each led by a byte that picks channel and shape).
cat >"$INLINE/redteam.json" <<'JSON'
[{"scenario_id": "hea_001", "vertical": "healthcare", "attack_class_id": "F2.10", "attack_family_id": "F2",
  "primary_channel": "tool_call", "adversary_level": "A1", "vault_field_count": 6,
  "expected_leaks": ["ssn", "diagnosis"], "detected_leaks": ["ssn"], "detected_on_primary": ["ssn"],
  "risk_index": 0.25, "privacy_score": 75},
 {"scenario_id": "fin_002", "attack_class_id": "F1.1", "attack_family_id": "F1", "primary_channel": "log",
  "vault_field_count": 0, "expected_leaks": ["iban"], "detected_leaks": [], "detected_on_primary": [],
  "risk_index": 0.0, "privacy_score": 100}]
JSON
cat >"$INLINE/redteam.jsonl" <<'JSON'
{"scenario_id": "a", "attack_class_id": "F2.10", "attack_family_id": "F2", "primary_channel": "final_output", "vault_field_count": 3, "expected_leaks": ["email"], "detected_leaks": ["email"], "detected_on_primary": ["email"], "risk_index": 0.5, "privacy_score": 50}

{"scenario_id": "b", "attack_class_id": "F9.9", "attack_family_id": "F9", "primary_channel": "shared_memory", "vault_field_count": 2, "expected_leaks": [], "detected_leaks": [], "detected_on_primary": [], "risk_index": 0.0, "privacy_score": 100}
JSON
cat >"$INLINE/scorecard.json" <<'JSON'
{
  "format": "agentrisk-scorecard",
  "version": 1,
  "generator": "agentrisk 0.1.0",
  "settings": {"confidence": 0.95, "continuity_correction": false, "group_by": "agent"},
  "analysis_config": null,
  "runs": [
    {"file": "a/t.json", "folder": "a", "source": "trace", "run_id": "r1", "agent_name": "bot", "scenario_id": "hr_01",
     "risk_index": 0.44, "privacy_score": 56, "verdict": "High risk", "blocked": true,
     "leaked_secrets": 4, "vault_secrets": 8,
     "level_profile": {"L1": 1, "L2": 1, "L3": 0, "L4": 2}, "vault_level_profile": {"L1": 2, "L2": 2, "L3": 1, "L4": 3},
     "channel_ri": {"shared_memory": 0.12, "log": 0.2}, "channel_leaks": {"log": {"L1": 0, "L2": 1, "L3": 0, "L4": 1}},
     "event_channels": ["user_input", "tool_call", "log"],
     "redteam": {"scenario_id": "hr_01", "vertical": "hr", "attack_class_id": "F2.10", "attack_family_id": "F2",
       "primary_channel": "log", "adversary_level": null, "vault_field_count": 5, "expected_leaks": ["ssn"],
       "detected_leaks": ["ssn"], "detected_on_primary": ["ssn"], "risk_index": 0.44, "privacy_score": 56}},
    {"file": "b/r.json", "folder": "b", "source": "report", "run_id": "r2", "agent_name": "", "scenario_id": null,
     "risk_index": 0.0, "privacy_score": 100, "verdict": "Pass", "blocked": false,
     "leaked_secrets": 0, "vault_secrets": 0,
     "level_profile": {"L1": 0, "L2": 0, "L3": 0, "L4": 0}, "vault_level_profile": {"L1": 0, "L2": 0, "L3": 0, "L4": 0},
     "channel_ri": {}, "channel_leaks": {}, "event_channels": null}
  ],
  "redteam_results": [],
  "summary": {"runs": 2}
}
JSON
cat >"$INLINE/redteam_trace.json" <<'JSON'
{"run_id": "rt", "agent_name": "bot", "scenario_id": "fin_007",
 "metadata": {"attack_class_id": "F2.10", "vertical": "finance", "vault_field_count": 4},
 "events": [{"channel": "user_input", "content": "my IBAN is DE44500105175407324931"},
            {"channel": "tool_call", "source": "agent", "target": "bank", "content": {"iban": "DE44500105175407324931"}}]}
JSON
printf '\x00Contact ana.lima@example.org or +1 415 555 0100\xff\x14{"ssn": "123-45-6789"}\xff\x46card 4111 1111 1111 1111, key sk-proj-abcdefghijklmnopqrstuv\xff\x5e\xff\x07Ym9iQGV4YW1wbGUuY29t moc.elpmaxe@amil.ana\xff\x53diagnosis: type 2 diabetes, salary $85,000' >"$INLINE/texts.bin"
printf '\x46AKIAIOSFODNN7EXAMPLE\xff\x16postgres://admin:hunter2@db.internal:5432/app\xff\x24DE44 5001 0517 5407 3249 31' >"$INLINE/texts2.bin"

# Shapes of the crashes fixed so far, so every run starts from them: a
# 60 000-character token (slow provenance), a 20 000-deep top-level metadata
# (stack overflow), a vault whose weighted size passes 2^63 − 1.
{ printf '\x01bearer '; head -c 60000 /dev/zero | tr '\0' a; } >"$INLINE/long_token.bin"
{ printf '{"metadata": {"a": '; head -c 20000 /dev/zero | tr '\0' '['; head -c 20000 /dev/zero | tr '\0' ']'
  printf '}, "events": []}'; } >"$INLINE/deep_metadata.json"
printf 'vault:\n  levels: {1: 9223372036854775807, 0: 9223372036854775807}\n' >"$INLINE/huge_vault.yaml"

shopt -s nullglob
TRACES=("$CASES"/*/trace.json www/samples/traces/*.json)
REPORTS=("$CASES"/*/report*.json www/samples/*.report.json)
for t in "${TARGETS[@]}"; do
  case $t in
    trace_pipeline) seed "$t" "${TRACES[@]}" "$INLINE/redteam_trace.json" "$INLINE/deep_metadata.json" ;;
    span_file) seed "$t" tests/fixtures/spans/*.json tests/fixtures/spans/*.jsonl ;;
    trace_text) seed "$t" "$INLINE"/texts*.bin "$INLINE/long_token.bin" www/samples/traces/*.json ;;
    report_rescore) seed "$t" "${REPORTS[@]}" ;;
    config_yaml) seed "$t" tests/fixtures/conformance/configs/*.yaml "$INLINE/huge_vault.yaml" ;;
    # A sample of each kind: the fuzzer gets to the loaders quickly.
    batch_file) seed "$t" www/samples/traces/*.json www/samples/*.report.json "$CASES"/ex_*/report.default.json \
      "$INLINE"/redteam*.json* "$INLINE/scorecard.json" "$INLINE/redteam_trace.json" "$INLINE/deep_metadata.json" ;;
  esac
  echo "$t: $(ls "fuzz/corpus/$t" | wc -l) inputs in fuzz/corpus/$t"
done
rm -rf "$INLINE"

SANITIZER=${FUZZ_SANITIZER:-none}
step "cargo +nightly fuzz build (sanitizer: $SANITIZER)"
(cd fuzz && cargo +nightly fuzz build -s "$SANITIZER")

failed=()
for t in "${TARGETS[@]}"; do
  step "fuzzing $t for ${SECONDS_EACH} s"
  if ! (cd fuzz && cargo +nightly fuzz run -s "$SANITIZER" "$t" -- \
    -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 -max_len="$(max_len "$t")" \
    -dict="$(dict "$t")" -print_final_stats=1); then
    failed+=("$t")
    echo "*** $t crashed: the input is in fuzz/artifacts/$t/" >&2
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  CURRENT_STEP="fuzzing (${failed[*]} crashed)"
  exit 1
fi
step "no crashes in ${TARGETS[*]}"
