#!/usr/bin/env bash
# Clean-build time of the messages crate (kafkawire-messages, every API) side by side with
# kafka-protocol 0.18 with the features that enable all its messages (client, broker,
# messages_enums), debug and release, in one run on one machine. Run from anywhere:
#
#     bash benches/scripts/compile_time.sh [scratch dir]
#
# With --areas first, it measures the messages crate's cargo features instead: the crate with
# no area, with each area alone and with `all`, then kafka-protocol 0.18 with `client` alone
# and with `client,broker,messages_enums`, one clean build each, and prints one table per
# profile. PROFILES="dev" limits either mode to debug builds (default "dev release"), and
# AREAS="producer admin" to those areas (default: every area; `none` and `all` always run).
#
#     bash benches/scripts/compile_time.sh --areas [scratch dir]
#
# Both crates are dependencies of one scratch package (default: $TMPDIR/kafkawire-compile-time,
# kept between runs so their dependencies are built once), with cargo's default dev and
# release profiles and the workspace's Cargo.lock. Dependencies are built first; then each
# crate alone is cleaned and rebuilt, ours and theirs alternately, so that only the crate
# itself is timed. Incremental compilation is off for both (a dependency from crates.io is
# never built incrementally). Prints wall time and CPU time (user + sys) per build.
#
# One build is not a measurement on a shared machine (kafka-protocol's own time has moved by
# 20% between runs): each build is repeated RUNS times (default 3), ours and theirs
# alternately, and the tables give the median wall and CPU time; the default mode also gives
# each pair's CPU ratio (ours / theirs, pairs built back to back) and their median, which is
# the figure to quote.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
areas_mode=
if [ "${1:-}" = --areas ]; then
    areas_mode=1
    shift
fi
profiles=${PROFILES:-dev release}
runs=${RUNS:-3}
dir=${1:-${TMPDIR:-/tmp}/kafkawire-compile-time}
mkdir -p "$dir/src"
protocol=$(awk '/^name = "kafka-protocol"$/ { getline; gsub(/"/, "", $3); print $3 }' "$root/Cargo.lock")

# The scratch manifest: our crate's features ($1: "default", or a list such as "txn" in
# quotes), and kafka-protocol's ($2).
manifest() {
    local ours
    if [ "$1" = default ]; then
        ours="{ path = \"$root/messages\" }"
    else
        ours="{ path = \"$root/messages\", default-features = false, features = [$1] }"
    fi
    cat > "$dir/Cargo.toml" <<EOF
[package]
name = "kafkawire-compile-time"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
kafkawire-messages = $ours
kafka-protocol = { version = "=$protocol", default-features = false, features = [$2] }

[workspace]
EOF
}
full='"client", "broker", "messages_enums"'
manifest default "$full"
echo > "$dir/src/lib.rs"
cp "$root/Cargo.lock" "$dir/Cargo.lock"

export CARGO_INCREMENTAL=0
export CARGO_TARGET_DIR="$dir/target"
cd "$dir"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rustc: $(rustc --version)"
echo "kafka-wire: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")"

echo "runs per build: $runs (medians below)"

# One timed clean build of crate $1 in profile $2: "wall cpu".
timed() {
    local crate=$1 profile=$2
    cargo clean -q -p "$crate" --profile "$profile"
    /usr/bin/time -o "$dir/time.txt" -f '%e %U %S' cargo build -q -p "$crate" --profile "$profile" >&2
    awk '{ printf "%.1f %.1f\n", $1, $2 + $3 }' "$dir/time.txt"
}

# The median of the numbers given as arguments (the mean of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.2f\n", (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'
}

# The median wall and CPU of RUNS clean builds of crate $1 in profile $2 ("wall cpu"); each
# run is logged to stderr with label $3.
repeated() {
    local crate=$1 profile=$2 label=$3 ws=() cs=() w c i
    for ((i = 1; i <= runs; i++)); do
        read -r w c < <(timed "$crate" "$profile")
        echo "  $label $profile, run $i: ${w} s wall, ${c} s cpu" >&2
        ws+=("$w")
        cs+=("$c")
    done
    printf '%.1f %.1f\n' "$(median "${ws[@]}")" "$(median "${cs[@]}")"
}

if [ -n "$areas_mode" ]; then
    # Ours: no area, each area alone, all; theirs: client alone, then everything.
    areas=${AREAS:-}
    [ -n "$areas" ] || areas=$(awk '/^# BEGIN features generated/ { on = 1 } on && /^[a-z-]+ = \[/ { print $1 } /^# END generated features/ { on = 0 }' "$root/messages/Cargo.toml" | grep -vx -e default -e all)
    for profile in $profiles; do
        name=$([ "$profile" = dev ] && echo debug || echo release)
        rows=()
        # Dependencies once: our features do not change theirs.
        echo "building dependencies ($profile)..." >&2
        manifest default "$full"
        cargo build -q --profile "$profile"
        for set in none $areas all; do
            case $set in
                none) features= ;;
                *) features="\"$set\"" ;;
            esac
            manifest "$features" "$full"
            read -r w c < <(repeated kafkawire-messages "$profile" "kafkawire-messages --features $set")
            rows+=("| kafkawire-messages \`$set\` | ${w} s | ${c} s |")
        done
        for theirs in '"client"' "$full"; do
            manifest '"all"' "$theirs"
            # Its own dependencies may differ by feature: built before the timed build.
            cargo build -q --profile "$profile"
            read -r w c < <(repeated kafka-protocol "$profile" "kafka-protocol [$theirs]")
            rows+=("| kafka-protocol $protocol \`$(tr -d '" ' <<<"$theirs")\` | ${w} s | ${c} s |")
        done
        echo
        echo "$name builds:"
        echo
        echo "| crate, features | wall (median of $runs) | CPU (user+sys, median of $runs) |"
        echo "| --- | ---: | ---: |"
        printf '%s\n' "${rows[@]}"
    done
    manifest default "$full"
    exit 0
fi

declare -A wall cpu ratio
for profile in $profiles; do
    echo "building dependencies ($profile)..." >&2
    cargo build -q --profile "$profile"
    ws_ours=() cs_ours=() ws_theirs=() cs_theirs=() ratios=()
    for ((i = 1; i <= runs; i++)); do
        # Ours then theirs, back to back: the pair shares the machine's load of the moment.
        read -r w c < <(timed kafkawire-messages "$profile")
        ws_ours+=("$w")
        cs_ours+=("$c")
        read -r w2 c2 < <(timed kafka-protocol "$profile")
        ws_theirs+=("$w2")
        cs_theirs+=("$c2")
        r=$(awk -v a="$c" -v b="$c2" 'BEGIN { printf "%.2f", a / b }')
        ratios+=("$r")
        echo "  $profile, pair $i: kafkawire-messages ${w} s wall, ${c} s cpu; kafka-protocol ${w2} s wall, ${c2} s cpu; ratio ${r}x" >&2
    done
    wall[ours.$profile]=$(printf '%.1f' "$(median "${ws_ours[@]}")")
    cpu[ours.$profile]=$(printf '%.1f' "$(median "${cs_ours[@]}")")
    wall[theirs.$profile]=$(printf '%.1f' "$(median "${ws_theirs[@]}")")
    cpu[theirs.$profile]=$(printf '%.1f' "$(median "${cs_theirs[@]}")")
    ratio[$profile]="$(median "${ratios[@]}")x ($(IFS=' '; echo "${ratios[*]}"))"
done

echo
echo "Medians of $runs clean builds each, ours and theirs alternately; ratio = ours / theirs CPU"
echo "per back-to-back pair, median (and every pair's):"
echo
echo "| build | kafkawire-messages: wall | CPU (user+sys) | kafka-protocol $protocol: wall | CPU (user+sys) | CPU ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for profile in $profiles; do
    name=$([ "$profile" = dev ] && echo debug || echo release)
    echo "| $name | ${wall[ours.$profile]} s | ${cpu[ours.$profile]} s | ${wall[theirs.$profile]} s | ${cpu[theirs.$profile]} s | ${ratio[$profile]} |"
done
