use kafka_wire::KafkaMessage;

// A field that some versions lack is checked for a non-default value on write, so its type
// must be `PartialEq`: the error is on the field's type, not on the derive. (A field in every
// version needs no comparison.)
#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Partition {
    #[kafka(versions = "0+")]
    index: i32,
}

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Topic {
    #[kafka(versions = "1+")]
    partitions: Vec<Partition>,
}

fn main() {}
