// A client-telemetry receiver (KIP-714) for the test broker: a broker advertises
// GetTelemetrySubscriptions and PushTelemetry only when a metrics reporter implements
// ClientTelemetryExporterProvider (it replaces the deprecated ClientTelemetry). It counts what it receives and keeps nothing.

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporterProvider;

public final class KwireTelemetry implements MetricsReporter, ClientTelemetryExporterProvider {
    static final AtomicLong PUSHES = new AtomicLong();

    @Override public void configure(Map<String, ?> configs) {}
    @Override public void init(List<KafkaMetric> metrics) {}
    @Override public void metricChange(KafkaMetric metric) {}
    @Override public void metricRemoval(KafkaMetric metric) {}
    @Override public void close() {}

    @Override
    public ClientTelemetryExporter clientTelemetryExporter() {
        return (context, payload) -> PUSHES.incrementAndGet();
    }
}
