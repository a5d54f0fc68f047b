use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", versions = "0-5", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
