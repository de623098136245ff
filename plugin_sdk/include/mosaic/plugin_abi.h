/* Mosaic plugin ABI: the stable C interface between the Mosaic host (libmosaic) and a device plugin.
 *
 * A plugin is a shared library exporting one symbol, MOSAIC_PLUGIN_ENTRY_SYMBOL, of type
 * mosaic_plugin_entry_fn. Everything else is reached through function tables.
 *
 * Versioning. MOSAIC_ABI_VERSION_MAJOR changes only when an existing member changes meaning or
 * position; the host refuses a plugin whose major differs. The minor grows when members are
 * appended to the end of a table. Every table starts with struct_size and a version, and a reader
 * checks MOSAIC_HAS_MEMBER(type, table, member) before touching a member newer than 1.0, so a host and a
 * plugin built against different minors work together. Members marked "optional" may be NULL; the
 * comment on each says what the host does then. Function tables grow by appending members; data
 * structs that travel in arrays or by value (tensors, records, statuses) keep reserved members so
 * they can grow without changing their stride. Reserved members must be NULL / zero.
 *
 * Ownership. Nothing C++ crosses: no exceptions, no STL, no memory freed by the other side.
 *  - Objects (devices, compiled models, requests, statuses) are created by one side and released
 *    through a function that the same side provides.
 *  - Strings and blobs produced for the other side are written into a caller-provided sink
 *    (mosaic_sink): the producer calls write() any number of times during the call; the bytes are
 *    the caller's. "const char*" arguments are valid only for the duration of the call unless the
 *    function states otherwise.
 *  - Errors: a function returns mosaic_status*; NULL is success. A non-NULL status was allocated
 *    by the side that returns it and is released by the receiver with status->release(status).
 *
 * JSON values that cross the ABI. Every JSON text is UTF-8 and one complete JSON document; the host
 * checks what a plugin sends and refuses any other shape with an error naming the plugin library,
 * the device, the key and the expected shape (`mosaic verify-plugin DEVICE` runs the same checks):
 *  - properties_json (host -> plugin: create_device, set_properties, query, compile, import_model;
 *    plugin -> host: query_device, compile_on_device, import_on_device): a JSON object
 *    {"KEY": value, ...}; NULL or "" from a plugin means {}. Values are JSON strings, numbers,
 *    booleans, arrays or objects, as the key's declaration says; a device accepts the spellings
 *    OpenVINO configuration files use ("YES"/"NO", numbers as strings).
 *  - get_property(key) (plugin -> host): one JSON value, e.g. "Emulated NPU" (quoted), 4, true.
 *  - get_property("SUPPORTED_PROPERTIES"): the canonical shape is a JSON array of objects
 *    [{"name": "PERF_COUNT", "mutable": true}, {"name": "FULL_DEVICE_NAME", "mutable": false}], one
 *    per key the device accepts in get_property; "mutable" says whether set_properties accepts the
 *    key; other members are allowed and ignored. A plain array of name strings ["PERF_COUNT"] is
 *    also accepted (each name is then mutable, as OpenVINO's PropertyName defaults to read-write);
 *    the host turns it into the canonical shape, which is what Core::get_property returns. Anything
 *    else (a string, an object, numbers, an object without a "name" string) is refused.
 *  - device_ids (plugin -> host): a JSON array of strings, each a non-empty id without '.', ':',
 *    ',' or spaces, e.g. ["0", "1"] (an id becomes part of a device string such as "GPU.1").
 *  - compiled_property(key) (plugin -> host): one JSON value; the host interprets
 *    EXECUTION_DEVICES (a JSON array of device-name strings) and OPTIMAL_NUMBER_OF_INFER_REQUESTS
 *    (a JSON integer >= 1), and answers SUPPORTED_PROPERTIES of a compiled model itself. Unknown
 *    keys: MOSAIC_ERROR_NOT_FOUND.
 *  - Query answers are not JSON: report(node, supported, detail) once per node, node below
 *    node_count; a node index out of range is refused, a node not reported counts as unsupported.
 *
 * Threads. Unless a function says otherwise: functions on different objects may run concurrently;
 * functions on one device or compiled model may run concurrently (the plugin synchronises);
 * functions on one infer request are called by one thread at a time.
 */
#ifndef MOSAIC_PLUGIN_ABI_H
#define MOSAIC_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MOSAIC_ABI_VERSION_MAJOR 1
/* 1.0: the base tables. 1.1: mosaic_plugin_api.estimate_cost (per-op cost, for placement).
 * 1.2: mosaic_host_api.estimate_cost, export_compiled, import_on_device (for orchestrators).
 * 1.3: device memory: mosaic_plugin_api.memory_info, compiled_memory, allocate_buffer, release_buffer,
 *      can_copy, copy, and tensors in a device's own buffers; the same through mosaic_host_api.
 * 1.4: mosaic_plugin_api.query_plan (an orchestrator's plan of a model, without compiling it). */
#define MOSAIC_ABI_VERSION_MINOR 4

#if defined(_WIN32)
#define MOSAIC_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MOSAIC_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#define MOSAIC_PLUGIN_ENTRY_SYMBOL "mosaic_plugin_entry"

/* True when a table of type `type` read from the other side is large enough to contain `member`. */
#define MOSAIC_HAS_MEMBER(type, table_ptr, member) \
    ((table_ptr)->struct_size >= offsetof(type, member) + sizeof((table_ptr)->member))

/* ------------------------------------------------------------------------------------------- */
/* Status                                                                                       */

typedef enum mosaic_status_code {
    MOSAIC_OK = 0,
    MOSAIC_ERROR_GENERAL = 1,
    MOSAIC_ERROR_INVALID_ARGUMENT = 2,  /* a bad property, tensor, graph... from the caller */
    MOSAIC_ERROR_NOT_SUPPORTED = 3,     /* e.g. an op or an optional feature the device lacks */
    MOSAIC_ERROR_NOT_FOUND = 4,         /* an unknown property key or device id */
    MOSAIC_ERROR_OUT_OF_MEMORY = 5,
    MOSAIC_ERROR_DEVICE = 6,            /* the device or its driver failed */
    MOSAIC_ERROR_CANCELLED = 7
} mosaic_status_code;

typedef struct mosaic_status mosaic_status;
struct mosaic_status {
    uint32_t struct_size;
    mosaic_status_code code;
    /* UTF-8, NUL-terminated, owned by the status; says what went wrong and what to do. */
    const char* message;
    /* Frees the status; provided by whoever allocated it. Never NULL. */
    void (*release)(mosaic_status* self);
    void* reserved[2];
};

/* ------------------------------------------------------------------------------------------- */
/* Sinks: caller-allocated outputs for strings and blobs.                                       */

typedef struct mosaic_sink {
    void* context;
    /* Appends `size` bytes. The producer may call it several times. Returns 0 on success, non-zero
     * if the consumer cannot take the bytes (the producer then stops and fails). */
    int (*write)(void* context, const void* data, size_t size);
} mosaic_sink;

/* ------------------------------------------------------------------------------------------- */
/* Element types and tensors                                                                    */

typedef enum mosaic_element_type {
    MOSAIC_ELEMENT_UNDEFINED = 0,
    MOSAIC_ELEMENT_F32 = 1,
    MOSAIC_ELEMENT_F16 = 2,
    MOSAIC_ELEMENT_BF16 = 3,
    MOSAIC_ELEMENT_F64 = 4,
    MOSAIC_ELEMENT_I8 = 5,
    MOSAIC_ELEMENT_U8 = 6,
    MOSAIC_ELEMENT_I16 = 7,
    MOSAIC_ELEMENT_U16 = 8,
    MOSAIC_ELEMENT_I32 = 9,
    MOSAIC_ELEMENT_U32 = 10,
    MOSAIC_ELEMENT_I64 = 11,
    MOSAIC_ELEMENT_U64 = 12,
    MOSAIC_ELEMENT_BOOLEAN = 13 /* one byte, 0 or 1 */
} mosaic_element_type;

typedef enum mosaic_memory_kind {
    MOSAIC_MEMORY_HOST = 0,   /* data is a host pointer */
    /* data is a buffer that allocate_buffer (ABI 1.3) handed out (an OpenCL plugin's cl_mem), of the
     * device named by memory_device. Passed to a request only by a host of ABI 1.3 or later, and only
     * a buffer of the request's own device (see infer). */
    MOSAIC_MEMORY_DEVICE = 1
} mosaic_memory_kind;

/* A tensor descriptor. Dense, row-major. The memory is owned by whoever fills the descriptor and
 * outlives the call it is passed to (for start_async: until the completion callback returns). */
typedef struct mosaic_tensor {
    uint32_t struct_size;
    mosaic_element_type element_type;
    uint32_t rank;
    const int64_t* dims;      /* `rank` dimensions */
    void* data;
    size_t byte_size;         /* product(dims) * element size */
    mosaic_memory_kind memory_kind;
    /* For MOSAIC_MEMORY_DEVICE: the device the buffer was allocated on, as the host named it to
     * allocate_buffer ("GPU.1", or "GPU" for the default instance); else NULL. */
    const char* memory_device;
    void* reserved[2];
} mosaic_tensor;

/* ------------------------------------------------------------------------------------------- */
/* Graph view: a read-only model handed to query and compile.                                  */

typedef struct mosaic_graph mosaic_graph; /* opaque to the plugin */

typedef struct mosaic_port_ref {
    size_t node;  /* node index */
    size_t port;  /* output index of that node */
} mosaic_port_ref;

/* Nodes are indexed 0..node_count-1 in a topological order; Parameters appear in the model's
 * input order and Results in its output order. An index out of range gives an empty answer (0,
 * NULL, "", MOSAIC_ELEMENT_UNDEFINED, or {SIZE_MAX, SIZE_MAX} from input_source), never a crash. Every pointer returned stays valid while the graph
 * is alive: for the whole query/compile call that received it, and no longer. Constant data
 * (constant_data) stays valid for the lifetime of the compiled model built from the graph: plugins
 * may keep and use the pointer instead of copying weights. All functions are thread-safe. */
typedef struct mosaic_graph_api {
    uint32_t struct_size;
    uint32_t version; /* (major << 16) | minor of the ABI the host was built with */

    const char* (*name)(const mosaic_graph* g);
    size_t (*node_count)(const mosaic_graph* g);
    const char* (*node_type)(const mosaic_graph* g, size_t node);      /* "Convolution" */
    const char* (*node_version)(const mosaic_graph* g, size_t node);   /* "opset1" */
    const char* (*node_name)(const mosaic_graph* g, size_t node);      /* friendly name, unique */

    size_t (*input_count)(const mosaic_graph* g, size_t node);
    mosaic_port_ref (*input_source)(const mosaic_graph* g, size_t node, size_t input);

    size_t (*output_count)(const mosaic_graph* g, size_t node);
    mosaic_element_type (*output_type)(const mosaic_graph* g, size_t node, size_t output);
    /* Writes the rank to *rank and returns the dims (static: shapes are inferred by the host). */
    const int64_t* (*output_shape)(const mosaic_graph* g, size_t node, size_t output, uint32_t* rank);

    /* Attributes, as OpenVINO IR writes them: name/value strings in order. */
    size_t (*attr_count)(const mosaic_graph* g, size_t node);
    const char* (*attr_name)(const mosaic_graph* g, size_t node, size_t attr);
    const char* (*attr_value)(const mosaic_graph* g, size_t node, size_t attr);

    /* Runtime info (e.g. "affinity"): returns NULL when the node has no such key. */
    const char* (*rt_info)(const mosaic_graph* g, size_t node, const char* key);

    /* Constant nodes: the bytes of output 0, zero-copy. NULL for other nodes. */
    const void* (*constant_data)(const mosaic_graph* g, size_t node, size_t* byte_size);
} mosaic_graph_api;

/* The handle a plugin receives: the table and the graph it applies to. */
typedef struct mosaic_graph_view {
    const mosaic_graph_api* api;
    const mosaic_graph* graph;
} mosaic_graph_view;

/* ------------------------------------------------------------------------------------------- */
/* Query results, profiling records, costs                                                      */

/* Called once per node by query(). For an unsupported node `detail` says why, e.g. "op Einsum is
 * not implemented" or "f64 is not supported". For a supported node it is NULL, or, from an
 * orchestrator such as HETERO, the device the node is placed on, optionally followed by a newline
 * and a human-readable explanation of the choice (Core::query_model returns it in
 * QueryResult::explanation). The host copies it. */
typedef struct mosaic_query_sink {
    void* context;
    void (*report)(void* context, size_t node, int supported, const char* detail);
} mosaic_query_sink;

typedef enum mosaic_profiling_status {
    MOSAIC_PROFILING_EXECUTED = 0,
    MOSAIC_PROFILING_NOT_RUN = 1,
    MOSAIC_PROFILING_OPTIMIZED_OUT = 2
} mosaic_profiling_status;

typedef struct mosaic_profiling_record {
    uint32_t struct_size;
    const char* node_name;  /* friendly name, or a plugin's name for a fused/extra step */
    const char* node_type;  /* op type as executed, e.g. "Convolution" */
    const char* exec_type;  /* implementation, e.g. "ref", "jit:avx512_core", "ocl:gemm" */
    mosaic_profiling_status status;
    uint64_t real_time_us;  /* wall time of the step */
    uint64_t cpu_time_us;   /* host CPU time spent on it */
    void* reserved[2];
} mosaic_profiling_record;

/* Called once per record; strings are valid during the call only (the host copies them). */
typedef struct mosaic_profiling_sink {
    void* context;
    void (*record)(void* context, const mosaic_profiling_record* record);
} mosaic_profiling_sink;

/* Per-op cost estimate (ABI 1.1), used by transfer-aware placement. */
typedef struct mosaic_op_cost {
    uint32_t struct_size;
    double compute_us;          /* estimated time to run the node once */
    double bytes_per_us;        /* sustained transfer rate in and out of this device */
    void* reserved[2];
} mosaic_op_cost;

/* Device memory (ABI 1.3): how much a device has and what compiled models hold, for memory-aware
 * placement. A figure a device cannot tell is 0. */
typedef struct mosaic_memory_info {
    uint32_t struct_size;
    uint64_t total_bytes;      /* the instance's memory */
    uint64_t available_bytes;  /* what allocations may still get (OpenCL cannot ask the driver: a GPU
                                * plugin reports total minus what it holds itself) */
    uint64_t used_bytes;       /* what this plugin holds on the instance now: weights, requests' buffers,
                                * allocate_buffer's buffers */
    uint32_t shares_host_memory; /* 1: the instance's memory is the host's (an integrated GPU, an OpenCL
                                  * CPU device): a tensor crossing through host memory costs it no copy */
    void* reserved[2];
} mosaic_memory_info;

typedef struct mosaic_compiled_memory {
    uint32_t struct_size;
    uint64_t model_bytes;    /* held once by the compiled model: weights and constants in device memory */
    uint64_t request_bytes;  /* held by each infer request: intermediate tensors, scratch, staging */
    void* reserved[2];
} mosaic_compiled_memory;

/* How bytes move between two memories (mosaic_host_api.copy_path), as HETERO's profiling records name
 * each crossing between subgraphs. */
typedef enum mosaic_copy_path {
    MOSAIC_COPY_SAME_MEMORY = 0,     /* one memory: nothing moves (zero-copy) */
    MOSAIC_COPY_DEVICE = 1,          /* within one device, or device to device without the host (peer) */
    MOSAIC_COPY_HOST_TO_DEVICE = 2,  /* between host memory and a device */
    MOSAIC_COPY_DEVICE_TO_HOST = 3,
    MOSAIC_COPY_HOST_STAGED = 4      /* two devices that cannot reach each other: through host memory */
} mosaic_copy_path;

/* ------------------------------------------------------------------------------------------- */
/* Host services, handed to the plugin at load.                                                 */

typedef enum mosaic_log_level {
    MOSAIC_LOG_ERROR = 0,
    MOSAIC_LOG_WARNING = 1,
    MOSAIC_LOG_INFO = 2,
    MOSAIC_LOG_DEBUG = 3
} mosaic_log_level;

typedef struct mosaic_host_compiled mosaic_host_compiled; /* a model the host compiled for a plugin */
typedef struct mosaic_host_request mosaic_host_request;   /* an infer request on one */

typedef void (*mosaic_completion_fn)(void* user_data, mosaic_status* status);

/* Valid from the entry call until the library is unloaded. All functions are thread-safe. */
typedef struct mosaic_host_api {
    uint32_t struct_size;
    uint32_t version; /* (major << 16) | minor */
    void* host_context; /* pass back as the first argument of every function below */

    /* Logging; `message` is copied. */
    void (*log)(void* host_context, mosaic_log_level level, const char* device, const char* message);

    /* --- For orchestrators (HETERO): other devices through the host. ---
     * `device` is a registry device name ("CPU", "GPU.1"). `graph` may be a view the orchestrator
     * implements itself (e.g. a subgraph); it must stay valid during the call and, for its
     * constant data, for the lifetime of the returned compiled model. */
    mosaic_status* (*query_device)(void* host_context, const char* device, mosaic_graph_view graph,
                                   const char* properties_json, mosaic_query_sink sink);
    mosaic_status* (*compile_on_device)(void* host_context, const char* device, mosaic_graph_view graph,
                                        const char* properties_json, mosaic_host_compiled** out);
    void (*release_compiled)(void* host_context, mosaic_host_compiled* compiled);
    mosaic_status* (*compiled_property)(void* host_context, mosaic_host_compiled* compiled, const char* key,
                                        mosaic_sink value_json);
    mosaic_status* (*create_request)(void* host_context, mosaic_host_compiled* compiled,
                                     mosaic_host_request** out);
    void (*release_request)(void* host_context, mosaic_host_request* request);
    /* Synchronous inference; inputs/outputs in the compiled graph's Parameter / Result order. */
    mosaic_status* (*infer)(void* host_context, mosaic_host_request* request, const mosaic_tensor* inputs,
                            size_t input_count, const mosaic_tensor* outputs, size_t output_count);
    /* Asynchronous inference: returns at once; `done` runs exactly once on another thread. */
    mosaic_status* (*start_async)(void* host_context, mosaic_host_request* request, const mosaic_tensor* inputs,
                                  size_t input_count, const mosaic_tensor* outputs, size_t output_count,
                                  mosaic_completion_fn done, void* user_data);
    mosaic_status* (*request_profiling)(void* host_context, mosaic_host_request* request,
                                        mosaic_profiling_sink sink);
    /* Default properties of a device as the host resolves them (registry, device file, Core). */
    mosaic_status* (*device_properties)(void* host_context, const char* device, mosaic_sink properties_json);

    /* Allocates a status for the plugin to return to the host. */
    mosaic_status* (*make_status)(void* host_context, mosaic_status_code code, const char* message);

    /* --- ABI 1.2 (check with MOSAIC_HAS_MEMBER(mosaic_host_api, host, member)) --- */
    /* The cost of running `node` of `graph` on `device`: the device's own estimate_cost when it has
     * one, else the host's estimate from the op's sizes (see the README, "Placement costs"). Always
     * fills *out on success. */
    mosaic_status* (*estimate_cost)(void* host_context, const char* device, mosaic_graph_view graph, size_t node,
                                    mosaic_op_cost* out);
    /* Writes the device's export blob of a model compiled through compile_on_device or
     * import_on_device; MOSAIC_ERROR_NOT_SUPPORTED when that device cannot export. */
    mosaic_status* (*export_compiled)(void* host_context, mosaic_host_compiled* compiled, mosaic_sink blob);
    /* Imports a blob written by export_compiled on `device` (properties as for compile_on_device).
     * The blob is valid during the call only; MOSAIC_ERROR_NOT_SUPPORTED when the device cannot import. */
    mosaic_status* (*import_on_device)(void* host_context, const char* device, const void* blob, size_t size,
                                       const char* properties_json, mosaic_host_compiled** out);

    /* --- ABI 1.3: other devices' memory (check with MOSAIC_HAS_MEMBER). `device` names an instance
     * ("GPU.1"); MOSAIC_ERROR_NOT_SUPPORTED where the device does not offer the call (a device whose
     * tensors are host memory has no buffers). --- */
    mosaic_status* (*memory_info)(void* host_context, const char* device, mosaic_memory_info* out);
    mosaic_status* (*compiled_memory)(void* host_context, mosaic_host_compiled* compiled, mosaic_compiled_memory* out);
    /* A buffer in the device's memory: pass it as a tensor with memory_kind MOSAIC_MEMORY_DEVICE and
     * memory_device `device` to requests compiled on that same device, and to copy. */
    mosaic_status* (*allocate_buffer)(void* host_context, const char* device, size_t bytes, void** out);
    void (*release_buffer)(void* host_context, const char* device, void* buffer);
    /* The path copy() takes from one memory to the other: a device name, or NULL for host memory. */
    mosaic_copy_path (*copy_path)(void* host_context, const char* from_device, const char* to_device);
    /* Copies src into dst (equal byte_size), each host memory or a buffer of allocate_buffer: through
     * a device's own copy where one can reach the other, through host memory otherwise. `done` as
     * for mosaic_plugin_api.copy. */
    mosaic_status* (*copy)(void* host_context, const mosaic_tensor* src, const mosaic_tensor* dst,
                           mosaic_completion_fn done, void* user_data);
} mosaic_host_api;

/* ------------------------------------------------------------------------------------------- */
/* Plugin objects                                                                               */

typedef struct mosaic_device mosaic_device;                 /* a device instance (one per registry entry) */
typedef struct mosaic_compiled_model mosaic_compiled_model; /* a graph compiled for a device */
typedef struct mosaic_infer_request mosaic_infer_request;   /* per-inference state */


typedef struct mosaic_plugin_api {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    const char* plugin_name;    /* static string */
    const char* plugin_version; /* static string */

    /* --- Devices. `name` is the registry device name ("CPU", "ACCEL"); `properties_json` is a JSON
     * object of initial properties (registry defaults then the device file), owned by the host.
     * One library may back several registry entries, and several hosts (Core objects) may use one
     * library: create_device is called once per entry and host. `host` is the services of the Core
     * that owns the device (orchestration goes through it); valid until release_device. --- */
    mosaic_status* (*create_device)(const mosaic_host_api* host, const char* name, const char* properties_json,
                                    mosaic_device** out);
    void (*release_device)(mosaic_device* device);

    /* Writes a JSON array of device ids (e.g. ["0","1"]; shape: see "JSON values that cross the
     * ABI" above) when the device has several physical instances; optional: NULL means one
     * instance with no id. */
    mosaic_status* (*device_ids)(mosaic_device* device, mosaic_sink ids_json);

    /* Properties, as a JSON object. set_properties validates every key first and changes nothing
     * on error (unknown key: MOSAIC_ERROR_NOT_FOUND; wrong type or value: INVALID_ARGUMENT).
     * get_property writes the JSON value; unknown key: MOSAIC_ERROR_NOT_FOUND. The key
     * SUPPORTED_PROPERTIES lists the keys as [{"name": string, "mutable": boolean}, ...] (see "JSON
     * values that cross the ABI" above for the accepted shapes). */
    mosaic_status* (*set_properties)(mosaic_device* device, const char* properties_json);
    mosaic_status* (*get_property)(mosaic_device* device, const char* key, mosaic_sink value_json);

    /* --- Query and compile --- */
    mosaic_status* (*query)(mosaic_device* device, mosaic_graph_view graph, const char* properties_json,
                            mosaic_query_sink sink);
    /* properties_json: compile-time properties layered over the device's (may be "{}"). */
    mosaic_status* (*compile)(mosaic_device* device, mosaic_graph_view graph, const char* properties_json,
                              mosaic_compiled_model** out);
    void (*release_compiled_model)(mosaic_compiled_model* model);
    mosaic_status* (*compiled_property)(mosaic_compiled_model* model, const char* key, mosaic_sink value_json);

    /* Optional (NULL, or MOSAIC_ERROR_NOT_SUPPORTED: export not supported). Writes an opaque blob
     * that import_model accepts. The same NOT_SUPPORTED convention holds for import_model and
     * estimate_cost, so a C++-layer plugin may fill every member and decline at run time. */
    mosaic_status* (*export_model)(mosaic_compiled_model* model, mosaic_sink blob);
    /* Optional (NULL: import not supported). The blob is valid during the call only. */
    mosaic_status* (*import_model)(mosaic_device* device, const void* blob, size_t size,
                                   const char* properties_json, mosaic_compiled_model** out);

    /* --- Inference --- */
    mosaic_status* (*create_request)(mosaic_compiled_model* model, mosaic_infer_request** out);
    /* Called only when no inference runs on the request, and never from within its own `done`; a
     * `done` callback may still be returning on the plugin's thread, so the plugin waits for that
     * thread before freeing. Requests are released before the compiled model that created them. */
    void (*release_request)(mosaic_infer_request* request);
    /* Runs synchronously. inputs/outputs are in Parameter / Result order and have exactly the
     * compiled types and shapes (the host checks); outputs are written in place. A tensor is host
     * memory, or (ABI 1.3, plugins whose allocate_buffer hands out buffers) a buffer of the request's
     * own instance: the host passes no other device's buffer; a plugin refuses what it cannot read
     * with MOSAIC_ERROR_INVALID_ARGUMENT. */
    mosaic_status* (*infer)(mosaic_infer_request* request, const mosaic_tensor* inputs, size_t input_count,
                            const mosaic_tensor* outputs, size_t output_count);
    /* Optional (NULL: the host runs infer() on a thread of its own). Returns at once; calls
     * done(user_data, status) exactly once from any thread when finished, passing ownership of
     * a non-NULL status. The tensors must stay valid until then. A request runs one inference
     * at a time: the host starts it again only once `done` has been called (possibly from within
     * `done`, e.g. a benchmark loop restarting the request). */
    mosaic_status* (*start_async)(mosaic_infer_request* request, const mosaic_tensor* inputs, size_t input_count,
                                  const mosaic_tensor* outputs, size_t output_count, mosaic_completion_fn done,
                                  void* user_data);
    /* Records of the last inference (empty when profiling is off). */
    mosaic_status* (*profiling)(mosaic_infer_request* request, mosaic_profiling_sink sink);

    /* --- ABI 1.1 --- */
    /* Optional (NULL, or absent in a 1.0 table: the host estimates from op sizes, see the README).
     * Estimates the cost of running `node` of `graph` on the device. */
    mosaic_status* (*estimate_cost)(mosaic_device* device, mosaic_graph_view graph, size_t node,
                                    mosaic_op_cost* out);

    /* --- ABI 1.3: device memory. Every member optional: NULL, absent in an older table, or
     * MOSAIC_ERROR_NOT_SUPPORTED at run time mean the device's tensors are host memory (a CPU). A
     * plugin offering allocate_buffer offers release_buffer, can_copy and copy too. `device_id` is
     * the instance ("1" for GPU.1; NULL or "" for the default one). --- */
    mosaic_status* (*memory_info)(mosaic_device* device, const char* device_id, mosaic_memory_info* out);
    mosaic_status* (*compiled_memory)(mosaic_compiled_model* model, mosaic_compiled_memory* out);
    /* A buffer of `bytes` (> 0) in the instance's memory; *out is its handle (an OpenCL plugin's
     * cl_mem), the `data` of tensors with memory_kind MOSAIC_MEMORY_DEVICE. Thread-safe. No memory
     * left: MOSAIC_ERROR_OUT_OF_MEMORY. */
    mosaic_status* (*allocate_buffer)(mosaic_device* device, const char* device_id, size_t bytes, void** out);
    /* Frees a buffer of allocate_buffer once no inference or copy uses it. */
    void (*release_buffer)(mosaic_device* device, const char* device_id, void* buffer);
    /* Whether copy() on this instance reaches `other_memory_device`'s buffers ("GPU.1": peer to peer,
     * without the host), 1 or 0; NULL asks about host memory, which a plugin with buffers must reach. */
    int (*can_copy)(mosaic_device* device, const char* device_id, const char* other_memory_device);
    /* Copies src into dst (equal byte_size): one is a buffer of this instance, the other host memory,
     * a buffer of this instance, or a buffer of a device can_copy accepts. With done == NULL it
     * returns once the bytes are in dst. Else it returns at once (a non-NULL status: nothing started,
     * done is not called) and runs done(user_data, status) exactly once from any thread, possibly
     * before copy returns; the tensors stay valid until then. */
    mosaic_status* (*copy)(mosaic_device* device, const char* device_id, const mosaic_tensor* src,
                           const mosaic_tensor* dst, mosaic_completion_fn done, void* user_data);

    /* --- ABI 1.4 --- */
    /* Optional (NULL or absent in an older table: the device has no plan to tell, as a single device
     * has none; so has a device that writes nothing and returns NULL). Writes, as one JSON object,
     * how the device would run `graph` with `properties_json` (as query() takes them), without
     * compiling it: an orchestrator's split, the memory each device would hold and the time each
     * part would take. The members are the device's own (HETERO's: docs/hetero.md); the host checks
     * the shape only and returns the object in QueryResult::plan. Any status is an error, as
     * compile() would give it for the same model (one that does not fit the devices, ops no device
     * runs): it is never taken for "no plan". An isolated plugin answers none: orchestrators, which
     * plan, run in the host's process. */
    mosaic_status* (*query_plan)(mosaic_device* device, mosaic_graph_view graph, const char* properties_json,
                                 mosaic_sink plan_json);
} mosaic_plugin_api;

/* Size of the table as ABI 1.0 defined it: a 1.0 plugin fills exactly this much. */
#define MOSAIC_PLUGIN_API_SIZE_1_0 offsetof(mosaic_plugin_api, estimate_cost)
/* ... and as ABI 1.2 defined it (before device memory). */
#define MOSAIC_PLUGIN_API_SIZE_1_2 offsetof(mosaic_plugin_api, memory_info)
/* ... and as ABI 1.3 defined it (before query_plan). */
#define MOSAIC_PLUGIN_API_SIZE_1_3 offsetof(mosaic_plugin_api, query_plan)

/* The entry point. Called once after loading. `host` (process-wide services: log, make_status; its
 * orchestration members fail) stays valid until the library is unloaded.
 * On success sets *api to a table that stays valid as long as the library is loaded. The plugin
 * may refuse a host whose major it does not support by returning a status (allocated with
 * host->make_status). Not called concurrently. */
typedef mosaic_status* (*mosaic_plugin_entry_fn)(const mosaic_host_api* host, const mosaic_plugin_api** api);

#ifdef __cplusplus
}
#endif

#endif /* MOSAIC_PLUGIN_ABI_H */
