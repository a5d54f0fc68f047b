use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-5", flexible = "none")]
struct Produce {
    #[kafka(versions = "-1+")]
    acks: i16,
}

fn main() {}
