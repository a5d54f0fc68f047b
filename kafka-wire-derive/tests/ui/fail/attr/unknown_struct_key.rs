use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(verions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
