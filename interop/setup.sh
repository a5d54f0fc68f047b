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
