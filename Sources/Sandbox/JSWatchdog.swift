import CJavaScriptCore
import Foundation

/// The CPU and memory guard of one engine while it runs a script.
///
/// JavaScriptCore has a CPU-time limit but no heap cap. So the limit is set to short slices;
/// at the end of each slice the callback checks the CPU time the script used against its budget
/// and the VM's heap against the ceiling, and either terminates the script or re-arms the limit
/// (a callback that returns false without re-arming leaves the script running unwatched).
final class JSWatchdog {
    /// Why the last script was terminated.
    enum Verdict {
        case cpu
        case memory(Int)
    }

    /// CPU seconds between checks: small enough to stop a runaway allocation within about a
    /// hundred megabytes, large enough to cost nothing measurable.
    static let slice = 0.01

    private let group: JSContextGroupRef
    private var cpuDeadline = 0.0
    private var memoryCeiling = Int.max
    private(set) var verdict: Verdict?

    init(group: JSContextGroupRef) {
        self.group = group
    }

    /// Starts watching a script allowed `cpuSeconds` of CPU time and `memoryBytes` of heap,
    /// counted from `start` (the thread's CPU time read just before; now when nil).
    func arm(cpuSeconds: Double, memoryBytes: Int, from start: Double? = nil) {
        verdict = nil
        cpuDeadline = (start ?? Self.threadCPUTime()) + cpuSeconds
        memoryCeiling = memoryBytes
        rearm()
    }

    /// Stops watching.
    func disarm() {
        JSContextGroupClearExecutionTimeLimit(group)
    }

    fileprivate func check(_ context: JSContextRef) -> Bool {
        if Self.threadCPUTime() >= cpuDeadline {
            verdict = .cpu
            return true
        }
        var used = Self.heapBytes(context)
        if used > memoryCeiling {
            // The figure counts garbage not collected yet (a call that makes and drops many
            // objects): the script is judged on what is live.
            JSSynchronousGarbageCollectForDebugging(context)
            used = Self.heapBytes(context)
        }
        if used > memoryCeiling {
            verdict = .memory(used)
            return true
        }
        rearm()
        return false
    }

    private func rearm() {
        JSContextGroupSetExecutionTimeLimit(
            group, Self.slice, watchdogCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The VM's heap plus the memory its objects hold outside it (string and buffer storage).
    static func heapBytes(_ context: JSContextRef) -> Int {
        guard let statistics = JSGetMemoryUsageStatistics(context) else { return 0 }
        // Held across the reads below, which may allocate.
        JSValueProtect(context, statistics)
        defer { JSValueUnprotect(context, statistics) }
        var total = 0.0
        for key in ["heapSize", "extraMemorySize"] {
            let name = JSStringCreateWithUTF8CString(key)
            defer { JSStringRelease(name) }
            if let value = JSObjectGetProperty(context, statistics, name, nil), JSValueIsNumber(context, value) {
                total += JSValueToNumber(context, value, nil)
            }
        }
        return Int(total)
    }

    /// CPU time used by the calling thread, in seconds: what JavaScriptCore's limit counts too.
    static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The C callback JavaScriptCore calls at the end of each slice; `info` is the watchdog.
private let watchdogCallback: JSShouldTerminateCallback = { context, info in
    guard let context, let info else { return true }
    return Unmanaged<JSWatchdog>.fromOpaque(info).takeUnretainedValue().check(context)
}
