/*
 * The DLPack ABI (from the DLPack specification, version 1.x), as devarray
 * uses it: tensors, managed tensors, the versioned capsule flags and the
 * C exchange API of DLPack 1.3 (__dlpack_c_exchange_api__).
 */
#ifndef DEVARRAY_SRC_DLPACK_ABI_H_
#define DEVARRAY_SRC_DLPACK_ABI_H_

#include <stdint.h>

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means C-contiguous (legacy) */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6 };

#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

/* The version devarray produces: 1.2 fills strides for every ndim > 0. */
#define DEVARRAY_DLPACK_MAJOR 1
#define DEVARRAY_DLPACK_MINOR 2

/* DLPack 1.3's C exchange API: a table of functions a type publishes as
   the capsule "dlpack_exchange_api" in its __dlpack_c_exchange_api__. */
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;

typedef struct {
    DLPackExchangeAPIHeader header;
    int (*managed_tensor_allocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                    void *error_ctx,
                                    void (*set_error)(void *error_ctx, const char *kind,
                                                      const char *message));
    int (*managed_tensor_from_py_object_no_sync)(void *py_object,
                                                 DLManagedTensorVersioned **out);
    int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned *tensor,
                                               void **out_py_object);
    int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id,
                               void **out_current_stream);
} DLPackExchangeAPI;

#define DLPACK_EXCHANGE_API_CAPSULE "dlpack_exchange_api"

#endif /* DEVARRAY_SRC_DLPACK_ABI_H_ */
