use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Empty;

fn main() {}
