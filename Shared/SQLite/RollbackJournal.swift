/// In-memory state kept alongside a store's database that undoes itself when a write rolls back,
/// by a log of its own: for state changed several times a request (a batch's tag counts, the
/// outbox's unpublished events), where one closure per change would cost allocations. The store asks
/// for a mark when a write level (the transaction or a savepoint) opens, and when that level rolls
/// back, to undo back to it.
public protocol RollbackJournal: AnyObject {
    /// Where the log is now.
    var journalMark: Int { get }
    /// Undoes every change logged after `mark`, newest first, and forgets them.
    func rollBack(to mark: Int)
    /// The outermost transaction committed: the log may be cleared.
    func journalCommitted()
}
