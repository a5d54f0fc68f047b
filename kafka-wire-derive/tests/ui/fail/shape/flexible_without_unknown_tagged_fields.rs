use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "3+")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
