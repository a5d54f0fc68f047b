#!/usr/bin/env bash
# Adds to the interop virtual environment (interop/setup.sh makes it) what the mini_broker
# test drives besides kafka-python: librdkafka, through confluent-kafka's wheels (which
# bundle it). Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${KAFKA_WIRE_INTEROP_VENV:-target/interop-venv}"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "confluent-kafka==2.16.2"
"$VENV/bin/python" -c "import confluent_kafka as c; print('confluent-kafka', c.version(), 'librdkafka', c.libversion()[0])"
