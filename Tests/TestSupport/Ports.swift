import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ports for servers whose port a test must name before they start: a child `functionhost serve`
/// process, or the admin port.
///
/// They come from below the kernel's ephemeral range (`ip_local_port_range`), which it draws
/// from for every `bind` to port 0 and every outgoing connection: the servers the tests run in
/// parallel and their clients can't take one between the moment it is chosen and the moment it
/// is bound. Each is handed out once per test process, starting at a place of the process's own
/// so two test processes on one machine don't walk the same ports, and skipped when something
/// already listens there.
package enum Ports {
    /// The next port in this process's walk.
    private static let next = Mutex<Int?>(nil)

    /// A port nothing listens on, handed out to no other caller of this process.
    package static func free() -> Int {
        let (low, high) = range
        while true {
            let port = next.withLock { next -> Int in
                let port = next ?? low + Int(UInt32(getpid()) &* 2_654_435_761 % UInt32(high - low))
                next = port + 1 < high ? port + 1 : low
                return port
            }
            if isFree(port) { return port }
        }
    }

    /// The ports to walk: from 10000 up to where the ephemeral range starts.
    private static var range: (Int, Int) {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return (10_000, max(start, 10_100))
    }

    /// Whether a listening socket can be bound to the port on 127.0.0.1 now.
    private static func isFree(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
