//! The three plans the autopilot holds, each with its id (PX4's CRC; 0 when empty or on
//! ArduPilot), and the mission item it would start from. Only whole plans go in: a transfer
//! builds its list elsewhere and swaps it in (PX4's double-buffered dataman slots), except
//! ArduPilot's mission and rally uploads, which write item by item (`replace`, `truncate`).

use super::item::Item;
use super::kind::PlanKind;

/// One plan.
#[derive(Debug, Clone, Default, PartialEq)]
struct Plan {
    items: Vec<Item>,
    id: u32,
}

/// What the autopilot stores.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plans {
    plans: [Plan; 3],
    /// The mission item to start from (PX4's `_current_seq`).
    current_seq: u16,
}

impl Plans {
    pub fn items(&self, kind: PlanKind) -> &[Item] {
        &self.plans[kind.index()].items
    }

    pub fn count(&self, kind: PlanKind) -> usize {
        self.plans[kind.index()].items.len()
    }

    pub fn id(&self, kind: PlanKind) -> u32 {
        self.plans[kind.index()].id
    }

    pub fn current_seq(&self) -> u16 {
        self.current_seq
    }

    pub fn set_current_seq(&mut self, seq: u16) {
        self.current_seq = seq;
    }

    /// A whole new plan of `kind` with its id.
    pub fn replace(&mut self, kind: PlanKind, items: Vec<Item>, id: u32) {
        self.plans[kind.index()] = Plan { items, id };
        if kind == PlanKind::Mission {
            let last = self.plans[0].items.len().saturating_sub(1);
            self.current_seq = self
                .current_seq
                .min(u16::try_from(last).unwrap_or(u16::MAX));
        }
    }

    pub fn clear(&mut self, kind: PlanKind) {
        self.replace(kind, Vec::new(), 0);
        if kind == PlanKind::Mission {
            self.current_seq = 0;
        }
    }

    /// ArduPilot's live write: item `index` replaced, or appended right after the last one.
    /// `false` for an index past the end.
    pub fn write(&mut self, kind: PlanKind, index: usize, item: Item) -> bool {
        let items = &mut self.plans[kind.index()].items;
        match index.cmp(&items.len()) {
            std::cmp::Ordering::Less => items[index] = item,
            std::cmp::Ordering::Equal => items.push(item),
            std::cmp::Ordering::Greater => return false,
        }
        true
    }

    /// ArduPilot's COUNT: the stored list cut to `len`.
    pub fn truncate(&mut self, kind: PlanKind, len: usize) {
        self.plans[kind.index()].items.truncate(len);
    }
}
