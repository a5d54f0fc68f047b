use kafka_wire::KafkaMessage;

// The error is reported once, on the nested struct; the parent that uses it compiles.
#[derive(KafkaMessage, PartialEq)]
#[kafka(versions = "0-9", flexible = "none")]
struct Partition {
    #[kafka(versions = "0+", default = "-1x")]
    index: i32,
}

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Topic {
    #[kafka(versions = "0+")]
    partitions: Vec<Partition>,
    #[kafka(versions = "0+", nullable = "0+")]
    leader: Option<Partition>,
}

fn main() {}
