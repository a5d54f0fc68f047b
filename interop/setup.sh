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

# ---- Apache Kafka 4.4.0's Java codec (interop/tests/java_codec.rs) ----
# Builds interop/java-codec against kafka-clients 4.4.0 from Maven Central, with the local
# Maven repository under target/ so a clean clone caches the jars where cargo's output lives,
# and writes the peer's classpath for the test.
M2="$PWD/target/m2"
JC_OUT="$PWD/target/java-codec"
mkdir -p "$JC_OUT"
mvn -q -B -Dmaven.repo.local="$M2" -f interop/java-codec/pom.xml \
    -DbuildDir="$JC_OUT/build" package dependency:build-classpath \
    -Dmdep.outputFile="$JC_OUT/deps.txt" >/dev/null
echo "$JC_OUT/build/java-codec-0.1.0.jar:$(cat "$JC_OUT/deps.txt")" > "$JC_OUT/classpath.txt"
java -cp "$(cat "$JC_OUT/classpath.txt")" kafkawire.interop.CodecPeer <<<'{"op":"info"}'

# --- Apache Kafka 4.4.0 for the real-cluster test (interop/tests/cluster.rs) -------------------
# The server and client jars (interop/cluster/pom.xml) into target/kafka-4.4.0/libs, and the
# Java client flows and telemetry receiver (interop/cluster/src) compiled into .../classes.
# Each step is skipped when its inputs are unchanged (a hash of them is kept next to it).
KAFKA_HOME="${KAFKA_WIRE_KAFKA_HOME:-target/kafka-4.4.0}"
case "$KAFKA_HOME" in /*) ;; *) KAFKA_HOME="$PWD/$KAFKA_HOME" ;; esac
command -v mvn >/dev/null && command -v javac >/dev/null || {
    echo "setup.sh: the Kafka cluster test needs mvn and a JDK 17+ (apt-get install maven default-jdk-headless)" >&2
    exit 1
}
jars_stamp="$(sha256sum interop/cluster/pom.xml | cut -c1-16)"
if [ "$(cat "$KAFKA_HOME/libs/.stamp" 2>/dev/null)" != "$jars_stamp" ]; then
    rm -rf "$KAFKA_HOME/libs"
    mvn -q -B -Dstyle.color=never -f interop/cluster/pom.xml dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$KAFKA_HOME/libs"
    echo "$jars_stamp" >"$KAFKA_HOME/libs/.stamp"
fi
classes_stamp="$(cat interop/cluster/src/main/java/*.java "$KAFKA_HOME/libs/.stamp" | sha256sum | cut -c1-16)"
if [ "$(cat "$KAFKA_HOME/classes/.stamp" 2>/dev/null)" != "$classes_stamp" ]; then
    rm -rf "$KAFKA_HOME/classes"
    javac -nowarn -d "$KAFKA_HOME/classes" -cp "$KAFKA_HOME/libs/*" interop/cluster/src/main/java/*.java
    echo "$classes_stamp" >"$KAFKA_HOME/classes/.stamp"
fi
echo "Kafka: $(ls "$KAFKA_HOME/libs" | grep -c 'jar$') jars and the Java flows in $KAFKA_HOME"
# --- end of the Kafka 4.4.0 block -------------------------------------------------------------
