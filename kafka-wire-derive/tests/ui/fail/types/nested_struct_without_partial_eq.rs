use kafka_wire::KafkaMessage;

// Non-default checks compare values, so a nested struct must be `PartialEq`: the error is on
// the field's type, not on the derive.
#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Partition {
    #[kafka(versions = "0+")]
    index: i32,
}

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Topic {
    #[kafka(versions = "0+")]
    partitions: Vec<Partition>,
}

fn main() {}
