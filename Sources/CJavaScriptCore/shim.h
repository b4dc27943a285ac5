#ifndef FUNCTIONHOST_CJAVASCRIPTCORE_SHIM_H
#define FUNCTIONHOST_CJAVASCRIPTCORE_SHIM_H

#include <JavaScriptCore/JavaScript.h>

// Exported by libjavascriptcoregtk-4.1 but declared only in a private header (JSContextRefPrivate.h).
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback, void *context);
JS_EXPORT void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);
// Also exported but private (JSBasePrivate.h): heap figures of the context's VM, read by the
// memory watchdog because JavaScriptCore has no per-context heap cap.
JS_EXPORT JSObjectRef JSGetMemoryUsageStatistics(JSContextRef ctx);
// Also exported but private (JSContextRefPrivate.h): a full collection, now, on this thread. The
// sandbox's GC-stress mode runs one where a value held outside the collector's sight would die.
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

// Public, from the GLib API's JSCOptions.h (not included: it pulls in GLib): sets a JavaScriptCore
// option; only valid before the first VM of the process is created (later, the options are
// frozen and writing one crashes). gboolean is int.
int jsc_options_set_boolean(const char *option, int value);

#endif
