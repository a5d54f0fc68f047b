use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
union Acks {
    code: i16,
    raw: u16,
}

fn main() {}
