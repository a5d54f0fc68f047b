use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-40000", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
