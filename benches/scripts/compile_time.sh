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
# profile. PROFILES="dev" limits the --areas run to debug builds (default "dev release"), and
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
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
areas_mode=
if [ "${1:-}" = --areas ]; then
    areas_mode=1
    shift
fi
profiles=${PROFILES:-dev release}
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
echo "kafka-wire: $(git -C "$root" rev-parse --short HEAD)"

# One timed clean build of crate $1 in profile $2: "wall cpu".
timed() {
    local crate=$1 profile=$2
    cargo clean -q -p "$crate" --profile "$profile"
    /usr/bin/time -o "$dir/time.txt" -f '%e %U %S' cargo build -q -p "$crate" --profile "$profile" >&2
    awk '{ printf "%.1f %.1f\n", $1, $2 + $3 }' "$dir/time.txt"
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
            read -r w c < <(timed kafkawire-messages "$profile")
            echo "  kafkawire-messages --features $set $profile: ${w} s wall, ${c} s cpu" >&2
            rows+=("| kafkawire-messages \`$set\` | ${w} s | ${c} s |")
        done
        for theirs in '"client"' "$full"; do
            manifest '"all"' "$theirs"
            # Its own dependencies may differ by feature: built before the timed build.
            cargo build -q --profile "$profile"
            read -r w c < <(timed kafka-protocol "$profile")
            echo "  kafka-protocol [$theirs] $profile: ${w} s wall, ${c} s cpu" >&2
            rows+=("| kafka-protocol $protocol \`$(tr -d '" ' <<<"$theirs")\` | ${w} s | ${c} s |")
        done
        echo
        echo "$name builds:"
        echo
        echo "| crate, features | wall | CPU (user+sys) |"
        echo "| --- | ---: | ---: |"
        printf '%s\n' "${rows[@]}"
    done
    manifest default "$full"
    exit 0
fi

declare -A wall cpu
for profile in dev release; do
    echo "building dependencies ($profile)..." >&2
    cargo build -q --profile "$profile"
    for crate in kafkawire-messages kafka-protocol; do
        read -r w c < <(timed "$crate" "$profile")
        wall[$crate.$profile]=$w
        cpu[$crate.$profile]=$c
        echo "  $crate $profile: ${w} s wall, ${c} s cpu" >&2
    done
done

echo
echo "| build | kafkawire-messages: wall | CPU (user+sys) | kafka-protocol $protocol: wall | CPU (user+sys) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for profile in dev release; do
    name=$([ "$profile" = dev ] && echo debug || echo release)
    echo "| $name | ${wall[kafkawire-messages.$profile]} s | ${cpu[kafkawire-messages.$profile]} s | ${wall[kafka-protocol.$profile]} s | ${cpu[kafka-protocol.$profile]} s |"
done
