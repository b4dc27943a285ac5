import JSON

/// One worker of a `CloudCode`: loads the code into the worker's engine, gives the script its
/// native entry points, and runs each step of an invocation under the invocation's budget.
///
/// An invocation is a chain of steps on the same worker: the call itself, then one step per
/// host answer and per timer that fires, until the script settles. Between steps the worker
/// serves other invocations, so a script waiting on the database holds no thread.
final class WorkerRuntime: Sendable {
    let worker: JSWorker
    let index: Int
    private let table: InvocationTable
    private let limits: CloudCode.Limits
    private let files: [(name: String, source: String)]

    init(index: Int, table: InvocationTable, limits: CloudCode.Limits, files: [(name: String, source: String)]) {
        self.worker = JSWorker(name: "js-worker-\(index)")
        self.index = index
        self.table = table
        self.limits = limits
        self.files = files
    }

    /// Loads the bootstrap, the SDK and the user's files into a fresh engine; returns the
    /// files that failed to load.
    func prepare(_ engine: JSEngine) -> [(file: String, error: ScriptError)] {
        engine.collectsBeforeEachCall = limits.collectsGarbageBeforeEachStep
        defineNatives(in: engine)
        let setup = JSEngine.Limits(cpuSeconds: 10, memoryBytes: limits.memoryBytes)
        for (name, source) in SandboxScripts.all {
            do throws(ScriptError) {
                _ = try engine.evaluate(source, file: name, limits: setup)
            } catch {
                // The host's own scripts are tested; failing here is a bug worth stopping for.
                preconditionFailure("\(name) failed to load: \(error)")
            }
        }
        let configuration: JSONValue = [
            "maxResultBytes": .int(Int64(limits.maxResultBytes)), "env": .object(limits.variables),
            "operations": BridgeOperation.operationTable,
        ]
        _ = try? engine.call("__fhConfigure", [.string(configuration.jsonString)], limits: setup)
        // Every file is first defined as a module (a syntax error is that file's alone), then
        // run in order; a file another one required has already run and is not run twice.
        var errors: [(String, ScriptError)] = []
        var defined: [(name: String, path: String)] = []
        for file in files {
            let path = JSONValue.string(file.name).jsonString
            // The wrapper shares the file's first line, so reported lines stay the file's own.
            let wrapped = "__fhDefineModule(\(path), function (exports, require, module, __filename, __dirname) {"
                + file.source + "\n});"
            do throws(ScriptError) {
                _ = try engine.evaluate(wrapped, file: file.name, limits: setup)
                defined.append((file.name, path))
            } catch {
                errors.append((file.name, error))
            }
        }
        for (name, path) in defined {
            do throws(ScriptError) {
                _ = try engine.evaluate("__fhRequireModule(\(path)); undefined", file: name, limits: setup)
            } catch {
                errors.append((name, error))
            }
        }
        return errors
    }

    /// Runs one step of invocation `id` (`__fhInvoke`, `__fhResolve`, `__fhFire`) with the CPU
    /// time the invocation has left. A step that fails ends the invocation. After the step
    /// (its promise jobs have run), answered invocations whose promises have all settled end.
    func step(_ id: Int, _ function: String, _ arguments: [JSEngine.Argument], box: JSEngineBox) {
        guard let cpuLeft = table.beginStep(id) else { return }
        // The budget is spent: the watchdog checks only every slice (10 ms), so steps shorter
        // than that would otherwise run on, each under a fresh millisecond, until the deadline.
        guard cpuLeft > 0 else {
            table.finish(id, ScriptError(.timeout, JSEngine.cpuLimitMessage), lines: drop(id, box: box))
            return endSettled(box)
        }
        let started = box.cpuTimeAtStepStart()
        defer { table.charge(id, seconds: box.cpuTimeAtStepEnd() - started) }
        do throws(ScriptError) {
            _ = try box.engine.call(
                function, arguments,
                limits: .init(cpuSeconds: max(0.001, cpuLeft), memoryBytes: limits.memoryBytes, startedAt: started))
        } catch {
            if box.engine.wasStopped {
                // Not called again: see `replaceStopped`. What the script held for the call goes
                // with its engine.
                table.finish(id, error)
                replaceStopped(box, error)
            } else {
                table.finish(id, error, lines: drop(id, box: box))
            }
        }
        endSettled(box)
    }

    /// Evaluates the host's own script on this worker, between steps (the code's names, a
    /// check of what it uses). A stop replaces the engine as a step's does: `JSWorker.evaluate`
    /// would leave a fresh engine without the code, and every later call on this worker failing.
    func evaluate(_ source: String) async throws(ScriptError) -> String? {
        try await worker.run { [self] box throws(ScriptError) in
            do throws(ScriptError) {
                return try box.engine.evaluate(source, limits: .init(cpuSeconds: 10, memoryBytes: limits.memoryBytes))
            } catch {
                if box.engine.wasStopped { replaceStopped(box, error) }
                throw error
            }
        }
    }

    /// Forgets what the script still holds for an ended invocation (pending calls, timers) and
    /// returns the lines it logged since its answer.
    func drop(_ id: Int, box: JSEngineBox) -> [BackgroundWork.Line] {
        Self.lines(try? box.engine.call("__fhAbort", [.number(Double(id))], limits: .init(cpuSeconds: 1)))
    }

    /// Ends the background work of the answered invocations on this worker that have nothing
    /// pending any more (no host call, no timer), with the lines they logged: the script is
    /// asked only when one of them logged since its answer: a call into it costs what a
    /// small step does.
    private func endSettled(_ box: JSEngineBox) {
        guard table.endQuiet(onWorker: index),
            let text = try? box.engine.call("__fhSettled", [], limits: .init(cpuSeconds: 1)),
            let settled = try? JSONValue(parsing: text)
        else { return }
        for entry in settled.arrayValue ?? [] {
            guard let id = entry["id"]?.intValue else { continue }
            table.quiet(Int(id), lines: Self.lines(entry["logs"]?.jsonString))
        }
    }

    /// Console lines from the script's JSON (`[{level, message}]`).
    private static func lines(_ text: String?) -> [BackgroundWork.Line] {
        guard let text, let json = try? JSONValue(parsing: text) else { return [] }
        return (json.arrayValue ?? []).map { ($0["level"]?.stringValue ?? "info", $0["message"]?.stringValue ?? "") }
    }

    /// After the watchdog stopped a script (its CPU time or its memory): starts over with a
    /// fresh engine, ending the invocations that were running on the old one (calls queued
    /// behind the step haven't started: they start on the new one).
    ///
    /// The stopped engine is never entered again. JavaScriptCore can keep the stop's
    /// termination pending past the call it ended (a stop in the promise jobs it runs on the
    /// way out of a call), and a later call into that VM then ends the whole process
    /// (`abort()` in `VMTraps::deferTerminationSlow`, seen under an attack of short steps and
    /// timers at their CPU budget). A worker serves one function for one client at a time
    /// (`WorkerScheduler`), so the calls ended with the engine are mostly the stopped caller's own.
    private func replaceStopped(_ box: JSEngineBox, _ error: ScriptError) {
        let reason = error.kind == .memoryLimit ? "filled its memory" : "ran past its CPU time"
        table.finishStarted(onWorker: index, ScriptError(error.kind, "The sandbox was reset after a script \(reason)."))
        box.engine = JSEngine()
        _ = prepare(box.engine)
    }

    /// The script's ways out: settling an invocation, asking the host, arming a timer.
    private func defineNatives(in engine: JSEngine) {
        let table = table
        // The answer; the script forgets the invocation unless it is kept for its background work.
        // An unreadable pending count counts as none: the caller gets its answer either way
        // (refusing the answer would leave it waiting until its deadline).
        engine.define("__fhSettle") { arguments in
            guard arguments.count == 3, let id = Int(arguments[0]) else { return nil }
            return table.answer(id, arguments[1], pending: Int(arguments[2]) ?? 0) ? "1" : nil
        }
        engine.define("__fhNote") { arguments in
            guard arguments.count == 3, let id = Int(arguments[0]), let pending = Int(arguments[1]),
                let lines = Int(arguments[2])
            else { return nil }
            table.note(id, pending: pending, lines: lines)
            return nil
        }
        engine.define("__fhHostCall") { [self] arguments in
            guard arguments.count == 4, let id = Int(arguments[0]), let callID = Double(arguments[1]) else { return nil }
            askHost(id, callID: callID, operation: arguments[2], argumentsText: arguments[3])
            return nil
        }
        engine.define("__fhTimer") { [self] arguments in
            guard arguments.count == 3, let id = Int(arguments[0]), let timerID = Double(arguments[1]),
                let milliseconds = Double(arguments[2])
            else { return nil }
            arm(id, timerID: timerID, milliseconds: milliseconds)
            return nil
        }
    }

    /// Runs a host call of invocation `id` through the invocation's gate (a few at once, none
    /// after it ended, background work included) and, once the invocation has answered, through
    /// the pool's gate for background host calls; hands the answer back to the script while the
    /// invocation is live. A call the gate refuses (too many waiting) is answered with the refusal.
    private func askHost(_ id: Int, callID: Double, operation: String, argumentsText: String) {
        guard let (host, _, gate) = table.host(of: id) else { return }
        let background = table.backgroundHostCalls
        // The bootstrap sends only the names it was given; anything else is refused, unsent.
        guard let operation = BridgeOperation(rawValue: operation) else {
            return deliver(id, callID: callID, (false, Self.failure(HostCallError(code: 1, message: "Unknown operation '\(operation)'."))))
        }
        do throws(HostCallError) {
            try gate.submit { [self] in
                let answer: (ok: Bool, text: String)
                do throws(HostCallError) {
                    guard let arguments = try? JSONValue(parsing: argumentsText) else {
                        throw HostCallError(code: 107, message: "The arguments of '\(operation)' are not JSON.")
                    }
                    // Decided when the call starts, not when the script made it: one that waited
                    // behind the invocation's gate past the answer is background work too. What
                    // a caller still waits for never waits here.
                    let answered = table.answeredFunction(id)
                    if let answered, await !background.enter(answered) {
                        // Its invocation ended while it waited (the task was cancelled): the
                        // script is gone, so the failure reaches no one; it never ran.
                        throw HostCallError(code: 124, message: "The call's background work ended before '\(operation)' ran.")
                    }
                    defer { if let answered { background.leave(answered) } }
                    answer = (true, try await host.perform(operation, arguments: arguments).jsonString)
                } catch {
                    answer = (false, Self.failure(error))
                }
                deliver(id, callID: callID, answer)
            }
        } catch {
            deliver(id, callID: callID, (false, Self.failure(error)))
        }
    }

    /// The script's view of a failed host call: `{code, message, status?}`.
    private static func failure(_ error: HostCallError) -> String {
        var failure: [String: JSONValue] = ["code": .int(Int64(error.code)), "message": .string(error.message)]
        if let status = error.status { failure["status"] = .int(Int64(status)) }
        return JSONValue.object(failure).jsonString
    }

    /// Queues a host call's answer for the script, in a step of its invocation's owner.
    private func deliver(_ id: Int, callID: Double, _ answer: (ok: Bool, text: String)) {
        // An invocation that ended meanwhile gets nothing: its answer must not sit on the
        // worker nor run in the step of a call that got it later.
        guard table.isLive(id) else { return }
        worker.submit { [self] box in
            guard table.isLive(id) else { return }
            step(id, "__fhResolve", [.number(Double(id)), .number(callID), .bool(answer.ok), .string(answer.text)], box: box)
        }
    }

    private func arm(_ id: Int, timerID: Double, milliseconds: Double) {
        guard let (_, deadline, _) = table.host(of: id) else { return }
        // A timer can't outlive its invocation: one set past the deadline (the background
        // bound, once it answered) never fires.
        let due = ContinuousClock.now + .milliseconds(Int64(max(0, min(milliseconds, 86_400_000))))
        guard due < deadline else { return }
        Task { [self] in
            try? await Task.sleep(until: due)
            worker.submit { [self] box in
                guard table.isLive(id) else { return }
                step(id, "__fhFire", [.number(Double(id)), .number(timerID)], box: box)
            }
        }
    }
}
