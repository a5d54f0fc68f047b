#!/usr/bin/env bash
# Prepares what the interop tests drive besides cargo: a Python virtual environment with
# kafka-python (its own protocol encoder/decoder) under target/. Safe to re-run.
# tshark is a system package: see interop/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${KAFKA_WIRE_INTEROP_VENV:-target/interop-venv}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "kafka-python==3.0.12"
# The codec modules kafka-python's record builder and reader use (snappy, lz4, zstd, and
# xxhash for the magic-0 lz4 header), and a fast CRC-32C.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    python-snappy lz4 zstandard xxhash crc32c
"$VENV/bin/python" -c "import kafka; print('kafka-python', kafka.__version__, 'in', '$VENV')"

# --- Apache Kafka 4.4.0 for the real-cluster test (interop/tests/cluster.rs) -------------------
# The server and client jars (interop/cluster/pom.xml) into target/kafka-4.4.0/libs, and the
# Java client flows and telemetry receiver (interop/cluster/src) compiled into .../classes.
# Skipped when already there (the pom and the sources are stamped).
KAFKA_HOME="${KAFKA_WIRE_KAFKA_HOME:-target/kafka-4.4.0}"
case "$KAFKA_HOME" in /*) ;; *) KAFKA_HOME="$PWD/$KAFKA_HOME" ;; esac
stamp="$(cat interop/cluster/pom.xml interop/cluster/src/main/java/*.java | sha256sum | cut -c1-16)"
if [ "$(cat "$KAFKA_HOME/.stamp" 2>/dev/null)" != "$stamp" ]; then
    command -v mvn >/dev/null && command -v javac >/dev/null || {
        echo "setup.sh: the Kafka cluster test needs mvn and a JDK 17+ (apt-get install maven default-jdk-headless)" >&2
        exit 1
    }
    rm -rf "$KAFKA_HOME/libs" "$KAFKA_HOME/classes"
    mvn -q -B -f interop/cluster/pom.xml dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$KAFKA_HOME/libs"
    javac -nowarn -d "$KAFKA_HOME/classes" -cp "$KAFKA_HOME/libs/*" interop/cluster/src/main/java/*.java
    echo "$stamp" >"$KAFKA_HOME/.stamp"
fi
echo "Kafka $(ls "$KAFKA_HOME/libs" | grep -c jar) jars and the Java flows in $KAFKA_HOME"
# --- end of the Kafka 4.4.0 block -------------------------------------------------------------
