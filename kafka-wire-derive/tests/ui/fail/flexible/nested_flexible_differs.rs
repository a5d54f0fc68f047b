use kafka_wire::{KafkaMessage, UnknownTaggedFields};

// Kafka gives every struct of a message the message's flexible versions.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "2+")]
struct Topic {
    #[kafka(versions = "0+")]
    partition: i32,
    unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1000, request, versions = "0-3", flexible = "3+")]
struct Request {
    #[kafka(versions = "0+")]
    topics: Vec<Topic>,
    unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
