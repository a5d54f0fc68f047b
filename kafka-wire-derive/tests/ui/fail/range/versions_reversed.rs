use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "5-2", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
