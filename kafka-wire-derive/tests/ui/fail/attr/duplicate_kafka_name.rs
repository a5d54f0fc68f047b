use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
    #[kafka(versions = "0+", name = "Acks")]
    required_acks: i16,
}

fn main() {}
