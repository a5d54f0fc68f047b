#!/usr/bin/env bash
# Extracts Kafka's error table from the kafka-clients jar into schemas/kafka-errors-$V.json
# (run once per Kafka release; then `cargo run -p xtask -- codegen` regenerates
# kafka-wire/src/error_code/table.rs from it), and Java's error responses to every empty
# request, and to requests naming a topic and partitions, into
# messages/tests/fixtures/java-error-responses*-$V.txt (the oracles of
# messages/tests/error_responses.rs). Needs a JDK and Maven; nothing else does.
set -euo pipefail
V="${1:-4.4.0}"
cd "$(dirname "$0")"
ROOT="$(cd ../.. && pwd)"
M2="${M2_REPO:-$HOME/.m2/repository}"
JAR="$M2/org/apache/kafka/kafka-clients/$V/kafka-clients-$V.jar"
[ -f "$JAR" ] || mvn -q dependency:get -Dartifact="org.apache.kafka:kafka-clients:$V"
# Errors' static initialiser logs through slf4j.
SLF4J="$(find "$M2/org/slf4j/slf4j-api" -name 'slf4j-api-*.jar' 2>/dev/null | sort | tail -1)"
[ -n "$SLF4J" ] || { mvn -q dependency:get -Dartifact=org.slf4j:slf4j-api:1.7.36;
  SLF4J="$M2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar"; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
javac -d "$TMP" -cp "$JAR" ErrorTable.java ErrorResponses.java ErrorResponsesNamed.java
java -cp "$JAR:$SLF4J:$TMP" ErrorTable "$V" 2>/dev/null >"$ROOT/schemas/kafka-errors-$V.json"
echo "wrote schemas/kafka-errors-$V.json"
OUT="$ROOT/messages/tests/fixtures/java-error-responses-$V.txt"
mkdir -p "$(dirname "$OUT")"
{
  echo "# Java's AbstractRequest.getErrorResponse(0, UNKNOWN_TOPIC_OR_PARTITION) for every empty request,"
  echo "# kafka-clients $V, by xtask/errors/ErrorResponses.java: key version body-hex (or ! why)."
  java -cp "$JAR:$SLF4J:$TMP" ErrorResponses 3 2>/dev/null
} >"$OUT"
echo "wrote ${OUT#$ROOT/}"
OUT="$ROOT/messages/tests/fixtures/java-error-responses-named-$V.txt"
{
  echo "# Java's AbstractRequest.getErrorResponse(0, UNKNOWN_TOPIC_OR_PARTITION) for requests naming topic t"
  echo "# (partitions 0, 1), kafka-clients $V, by xtask/errors/ErrorResponsesNamed.java:"
  echo "# key version request-body-hex response-body-hex (or ! why)."
  java -cp "$JAR:$SLF4J:$TMP" ErrorResponsesNamed 3 2>/dev/null
} >"$OUT"
echo "wrote ${OUT#$ROOT/}"
