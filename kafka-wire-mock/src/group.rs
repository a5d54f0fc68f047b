//! The group coordinator for classic groups (JoinGroup/SyncGroup, with their barriers), and
//! committed offsets. The states and checks are those of Kafka's `ClassicGroup` and
//! `GroupMetadataManager`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kafka_wire::{Bytes, ErrorCode, Str, Version};
use kafka_wire_messages::{
    decode_version_prefixed, delete_groups as dlg, describe_groups as dg, heartbeat as hb,
    join_group as jg, leave_group as lg, list_groups as lsg, offset_commit as oc,
    offset_delete as od, offset_fetch as of, sync_group as sg, ConsumerProtocolSubscription,
    RequestBody, RequestFrame, ResponseBody, TopicRef,
};

use crate::state::{Shared, State};

/// Kafka's `group.max.session.timeout.ms` default.
const MAX_SESSION_TIMEOUT: Duration = Duration::from_secs(1800);
/// Kafka's `offset.metadata.max.bytes` default.
const MAX_OFFSET_METADATA: usize = 4096;
/// How often the coordinator looks for expired sessions and rebalance deadlines.
const TICK: Duration = Duration::from_millis(20);

/// A classic group's state (Java's `ClassicGroupState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Empty,
    PreparingRebalance,
    CompletingRebalance,
    Stable,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Empty => "Empty",
            Phase::PreparingRebalance => "PreparingRebalance",
            Phase::CompletingRebalance => "CompletingRebalance",
            Phase::Stable => "Stable",
        }
    }
}

/// A member of a classic group.
#[derive(Debug)]
pub(crate) struct Member {
    instance_id: Option<Str>,
    client_id: Str,
    session_timeout: Duration,
    rebalance_timeout: Duration,
    protocols: Vec<(Str, Bytes)>,
    assignment: Bytes,
    /// Joined in the current rebalance.
    joined: bool,
    /// Its JoinGroup answer, once the rebalance completed.
    join_answer: Option<jg::JoinGroupResponse>,
    /// When its session expires; `None` while its JoinGroup waits.
    session_deadline: Option<Instant>,
}

/// A committed offset.
#[derive(Debug, Clone)]
pub(crate) struct Committed {
    pub offset: i64,
    pub leader_epoch: i32,
    pub metadata: Option<Str>,
}

/// A group: its members and generation, and its committed offsets.
#[derive(Debug)]
pub(crate) struct Group {
    phase: Phase,
    pub generation: i32,
    protocol_type: Option<Str>,
    protocol: Option<Str>,
    leader: Option<Str>,
    pub members: BTreeMap<Str, Member>,
    /// Member ids handed out with MEMBER_ID_REQUIRED, not joined yet (KIP-394).
    pending: BTreeSet<Str>,
    rebalance_deadline: Option<Instant>,
    pub offsets: BTreeMap<(Str, i32), Committed>,
}

impl Group {
    pub(crate) fn new() -> Self {
        Group {
            phase: Phase::Empty,
            generation: 0,
            protocol_type: None,
            protocol: None,
            leader: None,
            members: BTreeMap::new(),
            pending: BTreeSet::new(),
            rebalance_deadline: None,
            offsets: BTreeMap::new(),
        }
    }

    /// To PreparingRebalance: every member must join again before the longest rebalance
    /// timeout.
    fn prepare_rebalance(&mut self, now: Instant) {
        self.phase = Phase::PreparingRebalance;
        let timeout = self
            .members
            .values()
            .map(|m| m.rebalance_timeout)
            .max()
            .unwrap_or_default();
        self.rebalance_deadline = Some(now + timeout);
        for m in self.members.values_mut() {
            m.joined = false;
            m.join_answer = None;
        }
    }

    /// Completes the rebalance once every member joined, or at its deadline without the
    /// members that did not: a new generation, a protocol every member supports, a leader
    /// (the old one if it stayed), and each member's JoinGroup answer.
    fn try_complete(&mut self, now: Instant) {
        if self.phase != Phase::PreparingRebalance {
            return;
        }
        let all = self.members.values().all(|m| m.joined);
        if !all && self.rebalance_deadline.is_none_or(|d| now < d) {
            return;
        }
        self.members.retain(|_, m| m.joined);
        self.generation += 1;
        self.rebalance_deadline = None;
        if self.members.is_empty() {
            self.phase = Phase::Empty;
            self.protocol = None;
            self.leader = None;
            return;
        }
        self.protocol = self.select_protocol();
        if self
            .leader
            .as_ref()
            .is_none_or(|l| !self.members.contains_key(l))
        {
            self.leader = self.members.keys().next().cloned();
        }
        self.phase = Phase::CompletingRebalance;
        let protocol = self.protocol.clone().unwrap_or_default();
        let leader = self.leader.clone().unwrap_or_default();
        let everyone: Vec<jg::JoinGroupResponseMember> = self
            .members
            .iter()
            .map(|(id, m)| jg::JoinGroupResponseMember {
                member_id: id.clone(),
                group_instance_id: m.instance_id.clone(),
                metadata: m
                    .protocols
                    .iter()
                    .find(|(n, _)| *n == protocol)
                    .map(|(_, md)| md.clone())
                    .unwrap_or_default(),
                ..Default::default()
            })
            .collect();
        for (id, m) in &mut self.members {
            m.assignment = Bytes::new();
            m.join_answer = Some(jg::JoinGroupResponse {
                generation_id: self.generation,
                protocol_type: self.protocol_type.clone(),
                protocol_name: Some(protocol.clone()),
                leader: leader.clone(),
                member_id: id.clone(),
                members: if *id == leader {
                    everyone.clone()
                } else {
                    Vec::new()
                },
                ..Default::default()
            });
        }
    }

    /// Java's vote: among the protocols every member supports, each member votes for the
    /// first of its own list; the most votes win (ties to the earlier candidate).
    fn select_protocol(&self) -> Option<Str> {
        let candidates: Vec<&Str> = self
            .members
            .values()
            .next()?
            .protocols
            .iter()
            .map(|(n, _)| n)
            .filter(|n| {
                self.members
                    .values()
                    .all(|m| m.protocols.iter().any(|(p, _)| p == *n))
            })
            .collect();
        let votes = |c: &Str| {
            self.members
                .values()
                .filter(|m| {
                    m.protocols
                        .iter()
                        .map(|(n, _)| n)
                        .find(|n| candidates.contains(n))
                        == Some(c)
                })
                .count()
        };
        let mut best: Option<(&Str, usize)> = None;
        for c in &candidates {
            let v = votes(c);
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((c, v));
            }
        }
        best.map(|(c, _)| c.clone())
    }

    /// A member left or expired: the others rebalance.
    fn remove_member(&mut self, id: &Str, now: Instant) {
        if self.members.remove(id).is_none() {
            return;
        }
        match self.phase {
            Phase::Stable | Phase::CompletingRebalance => self.prepare_rebalance(now),
            Phase::PreparingRebalance | Phase::Empty => {}
        }
        self.try_complete(now);
    }

    /// The member id of the static member `instance`.
    fn static_member(&self, instance: &Str) -> Option<Str> {
        self.members
            .iter()
            .find(|(_, m)| m.instance_id.as_ref() == Some(instance))
            .map(|(id, _)| id.clone())
    }

    /// Whether `instance` belongs to a member other than `member` (KIP-345's fencing of a
    /// static member's old id).
    fn fenced(&self, member: &Str, instance: Option<&Str>) -> bool {
        instance
            .and_then(|i| self.static_member(i))
            .is_some_and(|id| id != *member)
    }

    fn touch(&mut self, id: &Str, now: Instant) {
        if let Some(m) = self.members.get_mut(id) {
            if m.session_deadline.is_some() {
                m.session_deadline = Some(now + m.session_timeout);
            }
        }
    }
}

/// Expires sessions and ends rebalances at their deadlines, until aborted.
pub(crate) async fn tick(shared: Arc<Shared>) {
    loop {
        tokio::time::sleep(TICK).await;
        let now = Instant::now();
        {
            let mut s = shared.lock();
            for g in s.groups.values_mut() {
                let expired: Vec<Str> = g
                    .members
                    .iter()
                    .filter(|(_, m)| m.session_deadline.is_some_and(|d| d <= now))
                    .map(|(id, _)| id.clone())
                    .collect();
                for id in expired {
                    g.remove_member(&id, now);
                }
                g.try_complete(now);
            }
        }
        shared.changed.notify_waiters();
    }
}

/// Java's error response to JoinGroup, naming `member_id`.
fn join_error(req: &RequestFrame, e: ErrorCode, member_id: Str) -> jg::JoinGroupResponse {
    let mut r = match req.body.error_response(req.version(), e) {
        ResponseBody::JoinGroup(r) => r,
        _ => jg::JoinGroupResponse::default(),
    };
    r.member_id = member_id;
    r
}

/// JoinGroup: joins (or rejoins) and waits at the barrier until the rebalance completes.
pub(crate) async fn join(
    shared: &Shared,
    broker: i32,
    req: &RequestFrame,
    j: &jg::JoinGroupRequest,
) -> jg::JoinGroupResponse {
    let v = req.version();
    let now = Instant::now();
    let member_id = {
        let mut s = shared.lock();
        let min_session = s.options.min_session_timeout;
        if s.coordinator(&j.group_id) != Some(broker) {
            return join_error(req, ErrorCode::NOT_COORDINATOR, j.member_id.clone());
        }
        if j.group_id.is_empty() {
            return join_error(req, ErrorCode::INVALID_GROUP_ID, j.member_id.clone());
        }
        let session = Duration::from_millis(j.session_timeout_ms.max(0) as u64);
        if session < min_session || session > MAX_SESSION_TIMEOUT {
            return join_error(req, ErrorCode::INVALID_SESSION_TIMEOUT, j.member_id.clone());
        }
        if j.protocols.is_empty() || j.protocol_type.is_empty() {
            return join_error(
                req,
                ErrorCode::INCONSISTENT_GROUP_PROTOCOL,
                j.member_id.clone(),
            );
        }
        s.next_member += 1;
        let fresh = Str::from(format!(
            "{}-{:08x}-mock",
            req.header
                .client_id
                .as_ref()
                .map_or("".into(), |c| c.to_string_lossy()),
            s.next_member
        ));
        let group = s
            .groups
            .entry(j.group_id.clone())
            .or_insert_with(Group::new);
        if !group.members.is_empty() {
            let others_agree = group.protocol_type.as_ref() == Some(&j.protocol_type)
                && j.protocols.iter().any(|p| {
                    group
                        .members
                        .iter()
                        .filter(|(id, _)| **id != j.member_id)
                        .all(|(_, m)| m.protocols.iter().any(|(n, _)| *n == p.name))
                });
            if !others_agree {
                return join_error(
                    req,
                    ErrorCode::INCONSISTENT_GROUP_PROTOCOL,
                    j.member_id.clone(),
                );
            }
        }
        // KIP-345: a static member (with an instance id) is known by it across restarts.
        let static_id = j
            .group_instance_id
            .as_ref()
            .and_then(|i| group.static_member(i));
        if let Some(old) = &static_id {
            if !j.member_id.is_empty() && *old != j.member_id {
                return join_error(req, ErrorCode::FENCED_INSTANCE_ID, j.member_id.clone());
            }
        }
        if let (true, Some(old)) = (j.member_id.is_empty(), static_id) {
            // A restarted static member takes its old place under a new id; the old id is
            // fenced. In a stable group with the same protocols nothing rebalances: it gets
            // the current generation, and its SyncGroup the assignment it had.
            if let Some(mut m) = group.members.remove(&old) {
                let same = m.protocols.len() == j.protocols.len()
                    && m.protocols
                        .iter()
                        .zip(&j.protocols)
                        .all(|((n, md), p)| *n == p.name && *md == p.metadata);
                let was_leader = group.leader.as_ref() == Some(&old);
                if was_leader {
                    group.leader = Some(fresh.clone());
                }
                if group.phase == Phase::Stable && same && !was_leader {
                    m.session_deadline = Some(now + m.session_timeout);
                    group.members.insert(fresh.clone(), m);
                    return jg::JoinGroupResponse {
                        generation_id: group.generation,
                        protocol_type: group.protocol_type.clone(),
                        protocol_name: group.protocol.clone(),
                        leader: group.leader.clone().unwrap_or_default(),
                        member_id: fresh,
                        ..Default::default()
                    };
                }
            }
        }
        let member_id = if j.member_id.is_empty() {
            // KIP-394: a dynamic member first gets its id, and joins again with it.
            if v >= 4 && j.group_instance_id.is_none() {
                group.pending.insert(fresh.clone());
                return join_error(req, ErrorCode::MEMBER_ID_REQUIRED, fresh);
            }
            fresh
        } else if group.members.contains_key(&j.member_id) || group.pending.remove(&j.member_id) {
            j.member_id.clone()
        } else {
            return join_error(req, ErrorCode::UNKNOWN_MEMBER_ID, j.member_id.clone());
        };
        group.protocol_type = Some(j.protocol_type.clone());
        let member = Member {
            instance_id: j.group_instance_id.clone(),
            client_id: req.header.client_id.clone().unwrap_or_default(),
            session_timeout: session,
            // v0 has no rebalance timeout: the session timeout is used.
            rebalance_timeout: if v == 0 {
                session
            } else {
                Duration::from_millis(j.rebalance_timeout_ms.max(0) as u64)
            },
            protocols: j
                .protocols
                .iter()
                .map(|p| (p.name.clone(), p.metadata.clone()))
                .collect(),
            assignment: Bytes::new(),
            joined: false,
            join_answer: None,
            session_deadline: None,
        };
        group.members.insert(member_id.clone(), member);
        if group.phase != Phase::PreparingRebalance {
            group.prepare_rebalance(now);
        } else if let Some(d) = group.rebalance_deadline.as_mut() {
            *d = (*d).max(now + group.members[&member_id].rebalance_timeout);
        }
        if let Some(m) = group.members.get_mut(&member_id) {
            m.joined = true;
        }
        group.try_complete(now);
        member_id
    };
    shared.changed.notify_waiters();
    // The barrier: the answer comes when the rebalance completes (the tick ends it at its
    // deadline); the wait is bounded by the longest rebalance timeout Kafka allows.
    let limit = now + MAX_SESSION_TIMEOUT;
    loop {
        let notified = shared.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        {
            let mut s = shared.lock();
            let Some(m) = s
                .groups
                .get_mut(&j.group_id)
                .and_then(|g| g.members.get_mut(&member_id))
            else {
                return join_error(req, ErrorCode::UNKNOWN_MEMBER_ID, member_id);
            };
            if let Some(answer) = m.join_answer.take() {
                m.session_deadline = Some(Instant::now() + m.session_timeout);
                return answer;
            }
        }
        if Instant::now() >= limit {
            return join_error(req, ErrorCode::REBALANCE_IN_PROGRESS, member_id);
        }
        let _ = tokio::time::timeout(TICK * 5, notified).await;
    }
}

fn sync_error(e: ErrorCode) -> sg::SyncGroupResponse {
    sg::SyncGroupResponse {
        error_code: e.code(),
        ..Default::default()
    }
}

/// SyncGroup: the leader's assignments end the rebalance; the others wait for them.
pub(crate) async fn sync(
    shared: &Shared,
    broker: i32,
    v: Version,
    g: &sg::SyncGroupRequest,
) -> sg::SyncGroupResponse {
    let now = Instant::now();
    let answer = |group: &Group| sg::SyncGroupResponse {
        protocol_type: group.protocol_type.clone(),
        protocol_name: group.protocol.clone(),
        assignment: group.members[&g.member_id].assignment.clone(),
        ..Default::default()
    };
    let wait = {
        let mut s = shared.lock();
        if s.coordinator(&g.group_id) != Some(broker) {
            return sync_error(ErrorCode::NOT_COORDINATOR);
        }
        let Some(group) = s.groups.get_mut(&g.group_id) else {
            return sync_error(ErrorCode::UNKNOWN_MEMBER_ID);
        };
        if group.fenced(&g.member_id, g.group_instance_id.as_ref()) {
            return sync_error(ErrorCode::FENCED_INSTANCE_ID);
        }
        let Some(member) = group.members.get(&g.member_id) else {
            return sync_error(ErrorCode::UNKNOWN_MEMBER_ID);
        };
        if g.generation_id != group.generation {
            return sync_error(ErrorCode::ILLEGAL_GENERATION);
        }
        if v >= 5
            && (g
                .protocol_type
                .as_ref()
                .is_some_and(|t| Some(t) != group.protocol_type.as_ref())
                || g.protocol_name
                    .as_ref()
                    .is_some_and(|n| Some(n) != group.protocol.as_ref()))
        {
            return sync_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
        }
        let wait = member.rebalance_timeout;
        group.touch(&g.member_id, now);
        match group.phase {
            Phase::Empty => return sync_error(ErrorCode::UNKNOWN_MEMBER_ID),
            Phase::PreparingRebalance => return sync_error(ErrorCode::REBALANCE_IN_PROGRESS),
            Phase::Stable => return answer(group),
            Phase::CompletingRebalance => {
                if group.leader.as_ref() == Some(&g.member_id) {
                    for m in group.members.values_mut() {
                        m.assignment = Bytes::new();
                    }
                    for a in &g.assignments {
                        if let Some(m) = group.members.get_mut(&a.member_id) {
                            m.assignment = a.assignment.clone();
                        }
                    }
                    group.phase = Phase::Stable;
                    let out = answer(group);
                    drop(s);
                    shared.changed.notify_waiters();
                    return out;
                }
            }
        }
        wait
    };
    let deadline = now + wait;
    loop {
        let notified = shared.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        {
            let s = shared.lock();
            let Some(group) = s
                .groups
                .get(&g.group_id)
                .filter(|gr| gr.members.contains_key(&g.member_id))
            else {
                return sync_error(ErrorCode::UNKNOWN_MEMBER_ID);
            };
            if group.generation != g.generation_id || group.phase == Phase::PreparingRebalance {
                return sync_error(ErrorCode::REBALANCE_IN_PROGRESS);
            }
            if group.phase == Phase::Stable {
                return answer(group);
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return sync_error(ErrorCode::REBALANCE_IN_PROGRESS);
        }
        let _ = tokio::time::timeout((deadline - now).min(TICK * 5), notified).await;
    }
}

/// The coordinator's APIs answered at once.
pub(crate) fn handle(s: &mut State, broker: i32, req: &RequestFrame) -> ResponseBody {
    let v = req.version();
    let now = Instant::now();
    let not_coordinator = |s: &State, group: &Str| s.coordinator(group) != Some(broker);
    match &req.body {
        RequestBody::Heartbeat(h) => {
            if not_coordinator(s, &h.group_id) {
                return req.body.error_response(v, ErrorCode::NOT_COORDINATOR);
            }
            let error = match s.groups.get_mut(&h.group_id) {
                Some(group) if group.fenced(&h.member_id, h.group_instance_id.as_ref()) => {
                    ErrorCode::FENCED_INSTANCE_ID
                }
                Some(group) if group.members.contains_key(&h.member_id) => {
                    group.touch(&h.member_id, now);
                    if h.generation_id != group.generation {
                        ErrorCode::ILLEGAL_GENERATION
                    } else if group.phase == Phase::PreparingRebalance {
                        ErrorCode::REBALANCE_IN_PROGRESS
                    } else {
                        ErrorCode::NONE
                    }
                }
                _ => ErrorCode::UNKNOWN_MEMBER_ID,
            };
            hb::HeartbeatResponse {
                error_code: error.code(),
                ..Default::default()
            }
            .into()
        }
        RequestBody::LeaveGroup(l) => leave(s, broker, l, v, now).into(),
        RequestBody::OffsetCommit(c) => {
            if not_coordinator(s, &c.group_id) {
                return req.body.error_response(v, ErrorCode::NOT_COORDINATOR);
            }
            commit(s, c, v, now).into()
        }
        RequestBody::OffsetFetch(f) => offset_fetch(s, broker, req, f, v),
        RequestBody::DescribeGroups(d) => describe(s, broker, d, v).into(),
        RequestBody::ListGroups(l) => list(s, broker, l).into(),
        RequestBody::DeleteGroups(d) => delete(s, broker, d).into(),
        RequestBody::OffsetDelete(d) => offset_delete(s, broker, d).into(),
        _ => req.body.error_response(v, ErrorCode::UNSUPPORTED_VERSION),
    }
}

fn leave(
    s: &mut State,
    broker: i32,
    l: &lg::LeaveGroupRequest,
    v: Version,
    now: Instant,
) -> lg::LeaveGroupResponse {
    let top = |e: ErrorCode| lg::LeaveGroupResponse {
        error_code: e.code(),
        ..Default::default()
    };
    if s.coordinator(&l.group_id) != Some(broker) {
        return top(ErrorCode::NOT_COORDINATOR);
    }
    let Some(group) = s.groups.get_mut(&l.group_id) else {
        return top(ErrorCode::UNKNOWN_MEMBER_ID);
    };
    if v < 3 {
        if !group.members.contains_key(&l.member_id) {
            return top(ErrorCode::UNKNOWN_MEMBER_ID);
        }
        group.remove_member(&l.member_id, now);
        return top(ErrorCode::NONE);
    }
    let members = l
        .members
        .iter()
        .map(|m| {
            // A static member may leave by its instance id alone.
            let id = if m.member_id.is_empty() {
                m.group_instance_id.as_ref().and_then(|i| {
                    group
                        .members
                        .iter()
                        .find(|(_, mm)| mm.instance_id.as_ref() == Some(i))
                        .map(|(id, _)| id.clone())
                })
            } else {
                group
                    .members
                    .contains_key(&m.member_id)
                    .then(|| m.member_id.clone())
            };
            let error = match id {
                Some(id) => {
                    group.remove_member(&id, now);
                    ErrorCode::NONE
                }
                None => ErrorCode::UNKNOWN_MEMBER_ID,
            };
            lg::MemberResponse {
                member_id: m.member_id.clone(),
                group_instance_id: m.group_instance_id.clone(),
                error_code: error.code(),
                ..Default::default()
            }
        })
        .collect();
    lg::LeaveGroupResponse {
        members,
        ..Default::default()
    }
}

/// A commit's partitions of one topic, checked (OffsetCommit's and TxnOffsetCommit's).
pub(crate) struct CheckedCommit {
    /// The topic's name and id, if it exists.
    pub topic: Option<(Str, kafka_wire::Uuid)>,
    /// Each partition's error.
    pub errors: Vec<(i32, ErrorCode)>,
    /// The offsets to keep, by partition.
    pub accepted: Vec<(i32, Committed)>,
}

/// Checks a commit's partitions of one topic as Kafka's coordinator does: `group_error`
/// first, then an unknown topic or partition, then metadata over Kafka's limit
/// (OFFSET_METADATA_TOO_LARGE).
pub(crate) fn check_commit(
    s: &State,
    r: Option<TopicRef<'_>>,
    group_error: ErrorCode,
    partitions: impl Iterator<Item = (i32, Committed)>,
) -> CheckedCommit {
    let found = s.find(r);
    let mut out = CheckedCommit {
        topic: found.map(|(n, t)| (n.clone(), t.id)),
        errors: Vec::new(),
        accepted: Vec::new(),
    };
    for (p, c) in partitions {
        let error = match found {
            _ if group_error != ErrorCode::NONE => group_error,
            None => crate::apis::unknown(r),
            Some((_, t)) if usize::try_from(p).map_or(true, |i| i >= t.partitions.len()) => {
                ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
            }
            _ if c
                .metadata
                .as_ref()
                .is_some_and(|m| m.len() > MAX_OFFSET_METADATA) =>
            {
                ErrorCode::OFFSET_METADATA_TOO_LARGE
            }
            Some(_) => {
                out.accepted.push((p, c));
                ErrorCode::NONE
            }
        };
        out.errors.push((p, error));
    }
    out
}

/// Java's `ClassicGroup.validateOffsetCommit`, then the partitions one by one.
fn commit(
    s: &mut State,
    c: &oc::OffsetCommitRequest,
    v: Version,
    now: Instant,
) -> oc::OffsetCommitResponse {
    let generation = c.generation_id_or_member_epoch;
    let group_error = match s.groups.get_mut(&c.group_id) {
        // A commit outside group management creates the group, as Kafka's does.
        None if generation < 0 => {
            s.groups.insert(c.group_id.clone(), Group::new());
            ErrorCode::NONE
        }
        None => ErrorCode::ILLEGAL_GENERATION,
        Some(g) if generation < 0 && g.phase == Phase::Empty => ErrorCode::NONE,
        Some(g) if generation >= 0 || !c.member_id.is_empty() || c.group_instance_id.is_some() => {
            if g.fenced(&c.member_id, c.group_instance_id.as_ref()) {
                ErrorCode::FENCED_INSTANCE_ID
            } else if !g.members.contains_key(&c.member_id) {
                ErrorCode::UNKNOWN_MEMBER_ID
            } else if generation != g.generation {
                ErrorCode::ILLEGAL_GENERATION
            } else if g.phase == Phase::CompletingRebalance {
                ErrorCode::REBALANCE_IN_PROGRESS
            } else {
                g.touch(&c.member_id, now);
                ErrorCode::NONE
            }
        }
        Some(_) => ErrorCode::UNKNOWN_MEMBER_ID,
    };
    let mut topics = Vec::new();
    for t in &c.topics {
        let partitions = t.partitions.iter().map(|p| {
            let c = Committed {
                offset: p.committed_offset,
                leader_epoch: p.committed_leader_epoch,
                metadata: p.committed_metadata.clone(),
            };
            (p.partition_index, c)
        });
        let checked = check_commit(s, t.topic_ref(v), group_error, partitions);
        let mut out = oc::OffsetCommitResponseTopic::default();
        let (name, id) = checked.topic.unwrap_or((t.name.clone(), t.topic_id));
        out.set_topic_ref(v, &name, id);
        out.partitions = checked
            .errors
            .iter()
            .map(|(p, e)| oc::OffsetCommitResponsePartition {
                partition_index: *p,
                error_code: e.code(),
                ..Default::default()
            })
            .collect();
        if let Some(g) = s.groups.get_mut(&c.group_id) {
            for (p, committed) in checked.accepted {
                g.offsets.insert((name.clone(), p), committed);
            }
        }
        topics.push(out);
    }
    oc::OffsetCommitResponse {
        topics,
        ..Default::default()
    }
}

fn offset_fetch(
    s: &State,
    broker: i32,
    req: &RequestFrame,
    f: &of::OffsetFetchRequest,
    v: Version,
) -> ResponseBody {
    // What a group committed for a partition: (offset, leader epoch, metadata).
    let committed = |group: &Str, topic: &Str, partition: i32| {
        s.groups
            .get(group)
            .and_then(|g| g.offsets.get(&(topic.clone(), partition)))
            .map_or((-1, -1, Str::from("")), |c| {
                (
                    c.offset,
                    c.leader_epoch,
                    c.metadata.clone().unwrap_or_default(),
                )
            })
    };
    // Every (topic, partitions) a group committed, for a request naming no topics.
    let all = |group: &Str| {
        let mut by_topic: BTreeMap<Str, Vec<i32>> = BTreeMap::new();
        if let Some(g) = s.groups.get(group) {
            for (t, p) in g.offsets.keys() {
                by_topic.entry(t.clone()).or_default().push(*p);
            }
        }
        by_topic
    };
    if v < 8 {
        if s.coordinator(&f.group_id) != Some(broker) {
            return req.body.error_response(v, ErrorCode::NOT_COORDINATOR);
        }
        let asked: Vec<(Str, Vec<i32>)> = match &f.topics {
            Some(ts) => ts
                .iter()
                .map(|t| (t.name.clone(), t.partition_indexes.to_vec()))
                .collect(),
            None => all(&f.group_id).into_iter().collect(),
        };
        let topics = asked
            .into_iter()
            .map(|(name, partitions)| of::OffsetFetchResponseTopic {
                partitions: partitions
                    .into_iter()
                    .map(|p| {
                        let (offset, epoch, metadata) = committed(&f.group_id, &name, p);
                        of::OffsetFetchResponsePartition {
                            partition_index: p,
                            committed_offset: offset,
                            committed_leader_epoch: epoch,
                            metadata: Some(metadata),
                            ..Default::default()
                        }
                    })
                    .collect(),
                name,
                ..Default::default()
            })
            .collect();
        return of::OffsetFetchResponse {
            topics,
            ..Default::default()
        }
        .into();
    }
    let groups = f
        .groups
        .iter()
        .map(|g| {
            let mut out = of::OffsetFetchResponseGroup {
                group_id: g.group_id.clone(),
                ..Default::default()
            };
            if s.coordinator(&g.group_id) != Some(broker) {
                out.error_code = ErrorCode::NOT_COORDINATOR.code();
                return out;
            }
            let asked: Vec<(Str, kafka_wire::Uuid, bool, Vec<i32>)> = match &g.topics {
                Some(ts) => ts
                    .iter()
                    .map(|t| {
                        let r = t.topic_ref(v);
                        let partitions = t.partition_indexes.to_vec();
                        match s.find(r) {
                            Some((n, tp)) => (n.clone(), tp.id, true, partitions),
                            // By name an unknown topic has no offsets; by id it is an error.
                            None => (
                                t.name.clone(),
                                t.topic_id,
                                !matches!(r, Some(TopicRef::Id(_))),
                                partitions,
                            ),
                        }
                    })
                    .collect(),
                None => all(&g.group_id)
                    .into_iter()
                    .map(|(n, ps)| {
                        let id = s.topics.get(&n).map(|t| t.id).unwrap_or_default();
                        (n, id, true, ps)
                    })
                    .collect(),
            };
            out.topics = asked
                .into_iter()
                .map(|(name, id, known, partitions)| {
                    let mut r = of::OffsetFetchResponseTopics {
                        partitions: partitions
                            .into_iter()
                            .map(|p| {
                                let mut out = of::OffsetFetchResponsePartitions {
                                    partition_index: p,
                                    committed_offset: -1,
                                    committed_leader_epoch: -1,
                                    metadata: Some(Str::from("")),
                                    ..Default::default()
                                };
                                if known {
                                    let (offset, epoch, metadata) =
                                        committed(&g.group_id, &name, p);
                                    (
                                        out.committed_offset,
                                        out.committed_leader_epoch,
                                        out.metadata,
                                    ) = (offset, epoch, Some(metadata));
                                } else {
                                    out.error_code = ErrorCode::UNKNOWN_TOPIC_ID.code();
                                }
                                out
                            })
                            .collect(),
                        ..Default::default()
                    };
                    r.set_topic_ref(v, &name, id);
                    r
                })
                .collect();
            out
        })
        .collect();
    of::OffsetFetchResponse {
        groups,
        ..Default::default()
    }
    .into()
}

fn describe(
    s: &State,
    broker: i32,
    d: &dg::DescribeGroupsRequest,
    v: Version,
) -> dg::DescribeGroupsResponse {
    let groups = d
        .groups
        .iter()
        .map(|id| {
            let mut out = dg::DescribedGroup {
                group_id: id.clone(),
                ..Default::default()
            };
            if s.coordinator(id) != Some(broker) {
                out.error_code = ErrorCode::NOT_COORDINATOR.code();
                return out;
            }
            let Some(g) = s.groups.get(id) else {
                // Since v6 an unknown group is an error; before, a dead group.
                if v >= 6 {
                    out.error_code = ErrorCode::GROUP_ID_NOT_FOUND.code();
                    out.error_message = Some(Str::from(format!("Group {id} not found.")));
                }
                out.group_state = Str::from("Dead");
                return out;
            };
            let stable = g.phase == Phase::Stable;
            out.group_state = Str::from(g.phase.name());
            out.protocol_type = g.protocol_type.clone().unwrap_or_default();
            if stable {
                out.protocol_data = g.protocol.clone().unwrap_or_default();
            }
            out.members = g
                .members
                .iter()
                .map(|(mid, m)| dg::DescribedGroupMember {
                    member_id: mid.clone(),
                    group_instance_id: m.instance_id.clone(),
                    client_id: m.client_id.clone(),
                    client_host: Str::from("/127.0.0.1"),
                    member_metadata: if stable {
                        m.protocols
                            .iter()
                            .find(|(n, _)| Some(n) == g.protocol.as_ref())
                            .map(|(_, md)| md.clone())
                            .unwrap_or_default()
                    } else {
                        Bytes::new()
                    },
                    member_assignment: if stable {
                        m.assignment.clone()
                    } else {
                        Bytes::new()
                    },
                    ..Default::default()
                })
                .collect();
            out
        })
        .collect();
    dg::DescribeGroupsResponse {
        groups,
        ..Default::default()
    }
}

/// OffsetDelete, as Kafka's coordinator answers it: the offsets of an empty group go; a
/// group with members keeps those of the topics its members subscribe to
/// (GROUP_SUBSCRIBED_TO_TOPIC; read from the consumer protocol's subscriptions), and a
/// group of another protocol type is NON_EMPTY_GROUP.
fn offset_delete(
    s: &mut State,
    broker: i32,
    d: &od::OffsetDeleteRequest,
) -> od::OffsetDeleteResponse {
    let top = |e: ErrorCode| od::OffsetDeleteResponse {
        error_code: e.code(),
        ..Default::default()
    };
    if s.coordinator(&d.group_id) != Some(broker) {
        return top(ErrorCode::NOT_COORDINATOR);
    }
    let known: BTreeSet<Str> = s.topics.keys().cloned().collect();
    let Some(g) = s.groups.get_mut(&d.group_id) else {
        return top(ErrorCode::GROUP_ID_NOT_FOUND);
    };
    let consumer = g.protocol_type.as_ref().is_some_and(|t| t == "consumer");
    if g.phase != Phase::Empty && !consumer {
        return top(ErrorCode::NON_EMPTY_GROUP);
    }
    let subscribed: BTreeSet<Str> = if g.phase == Phase::Empty {
        BTreeSet::new()
    } else {
        g.members
            .values()
            .filter_map(|m| {
                let (_, md) = m
                    .protocols
                    .iter()
                    .find(|(n, _)| Some(n) == g.protocol.as_ref())?;
                let (_, sub) = decode_version_prefixed::<ConsumerProtocolSubscription>(md).ok()?;
                Some(sub.topics)
            })
            .flatten()
            .collect()
    };
    let topics = d
        .topics
        .iter()
        .map(|t| od::OffsetDeleteResponseTopic {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|p| {
                    let error = if !known.contains(&t.name) {
                        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
                    } else if subscribed.contains(&t.name) {
                        ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC
                    } else {
                        g.offsets.remove(&(t.name.clone(), p.partition_index));
                        ErrorCode::NONE
                    };
                    od::OffsetDeleteResponsePartition {
                        partition_index: p.partition_index,
                        error_code: error.code(),
                    }
                })
                .collect(),
        })
        .collect();
    od::OffsetDeleteResponse {
        topics,
        ..Default::default()
    }
}

/// DeleteGroups: an empty group (no members) goes with its offsets; NON_EMPTY_GROUP,
/// GROUP_ID_NOT_FOUND and NOT_COORDINATOR otherwise.
fn delete(s: &mut State, broker: i32, d: &dlg::DeleteGroupsRequest) -> dlg::DeleteGroupsResponse {
    let results = d
        .groups_names
        .iter()
        .map(|id| {
            let error = match s.groups.get(id) {
                _ if s.coordinator(id) != Some(broker) => ErrorCode::NOT_COORDINATOR,
                None => ErrorCode::GROUP_ID_NOT_FOUND,
                Some(g) if !g.members.is_empty() => ErrorCode::NON_EMPTY_GROUP,
                Some(_) => {
                    s.groups.remove(id);
                    ErrorCode::NONE
                }
            };
            dlg::DeletableGroupResult {
                group_id: id.clone(),
                error_code: error.code(),
                ..Default::default()
            }
        })
        .collect();
    dlg::DeleteGroupsResponse {
        results,
        ..Default::default()
    }
}

fn list(s: &State, broker: i32, l: &lsg::ListGroupsRequest) -> lsg::ListGroupsResponse {
    let wanted = |filter: &[Str], value: &str| {
        filter.is_empty()
            || filter
                .iter()
                .any(|f| f.to_string_lossy().eq_ignore_ascii_case(value))
    };
    let groups = s
        .groups
        .iter()
        .filter(|(id, _)| s.coordinator(id) == Some(broker))
        .filter(|(_, g)| {
            wanted(&l.states_filter, g.phase.name()) && wanted(&l.types_filter, "classic")
        })
        .map(|(id, g)| lsg::ListedGroup {
            group_id: id.clone(),
            protocol_type: g.protocol_type.clone().unwrap_or_default(),
            group_state: Str::from(g.phase.name()),
            group_type: Str::from("classic"),
            ..Default::default()
        })
        .collect();
    lsg::ListGroupsResponse {
        groups,
        ..Default::default()
    }
}
