import CVips
import Dispatch
import Synchronization

/// Stops a libvips pipeline past its deadline. libvips checks an image's "kill" flag each time
/// a region of it is computed, so setting it on the loaded original stops the work within a
/// strip of rows. The switch is fired from a timer thread while the pipeline runs on another;
/// the lock makes sure the image is only touched while the pipeline still holds it.
final class VipsKillSwitch: Sendable {
    /// An image pointer passed between the pipeline's thread and the timer's (libvips' kill
    /// flag is meant to be set from another thread).
    private struct Target: @unchecked Sendable {
        let image: UnsafeMutablePointer<VipsImage>
    }

    private struct State {
        var target: Target?
        var fired = false
        var finished = false
    }

    private let state = Mutex(State())
    private let deadline: ContinuousClock.Instant

    /// A switch that fires `budget` from now.
    init(budget: Duration) {
        deadline = .now + budget
        let delay = budget.components
        let nanoseconds = max(0, delay.seconds) * 1_000_000_000 + max(0, delay.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [weak self] in
            self?.fire()
        }
    }

    /// The image whose computation the switch stops; killed at once when the deadline is past.
    func watch(_ image: UnsafeMutablePointer<VipsImage>) {
        state.withLock { state in
            state.target = Target(image: image)
            if state.fired || ContinuousClock.now >= deadline {
                state.fired = true
                vips_image_set_kill(image, 1)
            }
        }
    }

    /// Whether the deadline stopped the work.
    var fired: Bool { state.withLock { $0.fired } }

    /// The pipeline is done with the image: the switch no longer touches it.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.target = nil
        }
    }

    private func fire() {
        state.withLock { state in
            guard !state.finished else { return }
            state.fired = true
            if let target = state.target { vips_image_set_kill(target.image, 1) }
        }
    }
}
