use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    acks: i16,
}

fn main() {}
