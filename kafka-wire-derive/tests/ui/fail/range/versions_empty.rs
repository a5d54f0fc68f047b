use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
