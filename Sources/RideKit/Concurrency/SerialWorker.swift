import Foundation

/// Runs jobs one after another on a thread of its own while the caller goes on: the second core of a reader
/// (the track figures of `bikeride stats`, the packing of an import).
///
/// At most `queueLimit` jobs wait; `submit` blocks beyond that, so memory stays bounded however fast the caller
/// is. The thread starts with the first job submitted with `startingThread`; until then jobs only queue, and a
/// `finish()` with no thread runs them on the caller (a small file is not worth a thread). `run` is called on
/// one thread at a time, in submission order.
package final class SerialWorker<Job>: @unchecked Sendable {
    private let name: String
    private let queueLimit: Int
    private let run: (Job) -> Void
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var closed = false
    private var done = false
    private var thread: Thread?

    package init(name: String, queueLimit: Int, run: @escaping (Job) -> Void) {
        self.name = name
        self.queueLimit = queueLimit
        self.run = run
    }

    /// Queues a job, starting the thread first if `startingThread` and it has not started.
    package func submit(_ job: Job, startingThread: Bool = true) {
        condition.lock()
        if thread == nil && startingThread {
            let worker = Thread { [self] in work() }
            worker.name = name
            thread = worker
            worker.start()
        }
        while thread != nil && queue.count >= queueLimit { condition.wait() }
        queue.append(job)
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty && closed {
                done = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            run(job)
        }
    }

    /// Returns when every job submitted has run (on the caller, if the thread never started).
    package func finish() {
        condition.lock()
        if thread == nil {
            let jobs = queue
            queue = []
            condition.unlock()
            for job in jobs { run(job) }
        } else {
            closed = true
            condition.broadcast()
            while !done { condition.wait() }
            condition.unlock()
        }
    }

    /// Drops the jobs that wait and returns when the thread has ended (after the job it is running).
    package func discard() {
        condition.lock()
        queue = []
        closed = true
        condition.broadcast()
        if thread != nil { while !done { condition.wait() } }
        condition.unlock()
    }
}
