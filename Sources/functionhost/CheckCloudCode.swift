import ArgumentParser
import Foundation
import Sandbox

/// `functionhost check-cloud-code DIR`: what a LeanEngine project uses that the sandbox does not
/// have, with file:line, before anything is deployed.
struct CheckCloudCode: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "check-cloud-code",
        abstract: "List what a LeanEngine project uses that FunctionHost's sandbox does not support.",
        discussion: """
            Checks the files a deploy of DIR would send (for a LeanEngine Node project, cloud.js \
            and what it requires by relative path): npm packages, Node's built-in modules and \
            globals, process beyond process.env, and AV APIs the host's SDK lacks; plus the npm \
            dependencies of package.json and the web routes of an Express app.js, which are not \
            served here. Exits 1 when it finds anything, 0 when the code can deploy as it is.
            """)

    @Argument(help: "The project folder.")
    var directory: String = "."

    func run() async throws {
        try await ClientFailure.reporting {
            let all = try DeploySources.collect(in: directory, selecting: false)
            let packageJSON = try? String(contentsOfFile: directory + "/package.json", encoding: .utf8)
            let markers: Set<String> = packageJSON == nil ? [] : ["package.json"]
            let files = CloudCodeFiles.selected(all, markers: markers)
            if files.count < all.count {
                print("A LeanEngine project: checking cloud.js and the \(files.count - 1) files it requires.")
            } else {
                print("Checking \(files.count) files.")
            }
            var findings: [CloudCodeCheck.Finding]
            do {
                findings = try await CloudCodeCheck.findings(files: files, packageJSON: packageJSON)
            } catch {
                throw ClientFailure(message: "the sandbox could not start: \(error)")
            }
            if files.count < all.count, let app = all["app.js"] {
                findings += CloudCodeCheck.webRoutes(in: app, file: "app.js")
            }
            for finding in findings { print(finding) }
            if findings.isEmpty {
                print("Everything it uses is supported: it can deploy as it is.")
            } else {
                let files = Set(findings.map(\.file)).count
                print("\(findings.count) thing\(findings.count == 1 ? "" : "s") to change, in \(files) file\(files == 1 ? "" : "s").")
                throw ExitCode.failure
            }
        }
    }
}
