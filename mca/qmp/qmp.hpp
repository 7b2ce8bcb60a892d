// SPDX-License-Identifier: BSD-3-Clause
/*
 * qmp.hpp -- the C++ binding of QMP (2002 specification, "C++ binding"),
 * header-only over the C API in qmp.h.  Installed next to qmp.h.
 *
 * Everything is in namespace QMP and keeps the specification's names:
 * QMP::init, QMP::getNumberOfNodes, QMP::MessageMemory, QMP::SingleOperation,
 * QMP::MultiOperation, QMP::sumDouble, ...  What the specification leaves
 * open is decided at each declaration ("Decision:").  Beyond it:
 *   - every class owns its C handle (RAII): copying is deleted, moving hands
 *     the handle over, the destructor frees it;
 *   - QMP::Session initialises QMP and finalises it when it goes out of scope;
 *   - named constructors for every kind of message memory
 *     (MessageMemory::contiguous / strided / stridedArray / indexed).
 *
 * Errors are values, as in the C API: calls return a QMP_status_t (or
 * QMP_bool_t / a null pointer, whose reason is QMP_get_error_number(NULL));
 * nothing here throws.  Threads: as the C API (one thread at a time unless
 * QMP_THREAD_MULTIPLE was granted).
 *
 * Compiles as C++11 and later, warning-free with -Wall -Wextra.
 */
#ifndef QMP_HPP
#define QMP_HPP

#include "qmp.h"

#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace QMP
{

// The C API answers in int; the specification's C++ binding in QMP_u32_t.
// An int object may be read through its unsigned counterpart, so the
// arrays the C API owns are handed out as they are, without copies.
static_assert(std::is_same<QMP_u32_t, std::make_unsigned<int>::type>::value,
              "qmp.hpp hands out the C API's int arrays as QMP_u32_t arrays");

/* Direction along a dimension.  The specification declares SIGN before
 * namespace QMP (a global name); Decision: it lives in QMP and is also
 * brought to the global namespace (below) unless QMP_CXX_NO_GLOBAL_SIGN is
 * defined, so code written either way compiles. */
enum SIGN { PLUS = 1, MINUS = -1 };

/* The priority a declare gets when none is given.  The specification names
 * DEFAULT_PRIORITY without a value; 0 (the highest, which QMP 2.x
 * applications pass) is it.  Meridian accepts and ignores priorities. */
const QMP_s32_t DEFAULT_PRIORITY = 0;

/* The specification's name for the user reduction type (qmp.h's). */
typedef ::QMP_binary_func QMP_binary_func;

namespace detail
{

// A negative or oversized count becomes QMP_INVALID_ARG, not a wrap-around.
inline bool fits_int(QMP_u32_t n)
{
    return n <= static_cast<QMP_u32_t>(INT_MAX);
}
/* A C collective on a copy of *x in the type it takes; *x gets the result
 * back only on success. */
template <typename Wide, typename Narrow>
QMP_status_t through(Narrow *x, QMP_status_t (*call)(Wide *))
{
    Wide v = static_cast<Wide>(*x);
    QMP_status_t status = call(&v);
    if (status == QMP_SUCCESS)
        *x = static_cast<Narrow>(v);
    return status;
}
/* A C array collective, length checked against its int count. */
template <typename T> QMP_status_t array(T *x, QMP_u32_t length, QMP_status_t (*call)(T *, int))
{
    if (!fits_int(length))
        return QMP_INVALID_ARG;
    return call(x, static_cast<int>(length));
}

inline const QMP_u32_t *as_u32(const int *p)
{
    return reinterpret_cast<const QMP_u32_t *>(p);
}
inline const int *as_int(const QMP_u32_t *p)
{
    return reinterpret_cast<const int *>(p);
}
inline int *as_int(QMP_u32_t *p)
{
    return reinterpret_cast<int *>(p);
}

// QMP_TRUE / QMP_FALSE without qmp.h's C casts (-Wold-style-cast).
inline QMP_bool_t to_bool(bool b)
{
    return static_cast<QMP_bool_t>(b);
}

// The reason of the last failed call, never QMP_SUCCESS (a call that
// returned NULL failed, even if the C layer left no number behind).
inline QMP_status_t last_error()
{
    QMP_status_t status = QMP_get_error_number(nullptr);
    return status == QMP_SUCCESS ? QMP_ERROR : status;
}

// Bitwise xor of 8-byte values for QMP_binary_reduction (globalXor where
// unsigned long is not 64 bits wide).
inline void xor_u64(void *inout, void *in)
{
    QMP_u64_t a;
    QMP_u64_t b;
    std::memcpy(&a, inout, sizeof a);
    std::memcpy(&b, in, sizeof b);
    a ^= b;
    std::memcpy(inout, &a, sizeof a);
}

inline QMP_status_t global_xor_u64(QMP_u64_t *value, std::true_type /* ulong is 64 bits */)
{
    unsigned long v = *value; // as wide as QMP_u64_t here
    QMP_status_t status = QMP_xor_ulong(&v);
    if (status == QMP_SUCCESS)
        *value = v;
    return status;
}

inline QMP_status_t global_xor_u64(QMP_u64_t *value, std::false_type)
{
    return QMP_binary_reduction(value, sizeof *value, xor_u64);
}

} // namespace detail

/* ================================================================ init */

/* Start QMP (the 2002 form).  Meridian always gives each process of an SMP
 * node its own node number.  Decision: QMP_SMP_ONE_ADDRESS (the application
 * runs threads of its own on the node) asks for QMP_THREAD_FUNNELED, and
 * QMP_SMP_MULTIPLE_ADDRESS (one process per processor) for
 * QMP_THREAD_SINGLE.  QMP's and Meridian's options are removed from argv.
 * Returns QMP_SUCCESS or the reason (also QMP_get_error_string(NULL)). */
inline QMP_status_t init(int *argc, char ***argv, QMP_smpaddr_type_t option = QMP_SMP_ONE_ADDRESS)
{
    QMP_thread_level_t provided = QMP_THREAD_SINGLE;
    QMP_thread_level_t required =
        option == QMP_SMP_ONE_ADDRESS ? QMP_THREAD_FUNNELED : QMP_THREAD_SINGLE;
    return QMP_init_msg_passing(argc, argv, required, &provided);
}

/* Start QMP (the 2.x form): `provided` receives the granted thread level. */
inline QMP_status_t init(int *argc, char ***argv, QMP_thread_level_t required,
                         QMP_thread_level_t *provided)
{
    return QMP_init_msg_passing(argc, argv, required, provided);
}

/* Stop QMP and free what it holds.  Destroy the QMP objects below
 * (MessageMemory, SingleOperation, MultiOperation) before: their destructors
 * call QMP. */
inline void finalize(void)
{
    QMP_finalize_msg_passing();
}

/* QMP from construction to destruction: init in the constructor, finalize
 * in the destructor (only when init succeeded).  Not copyable or movable:
 * declare one in main, before every other QMP object, so it is destroyed
 * last. */
class Session
{
  public:
    Session(int *argc, char ***argv, QMP_thread_level_t required = QMP_THREAD_SINGLE)
        : status_(QMP_init_msg_passing(argc, argv, required, &provided_))
    {
    }
    ~Session()
    {
        if (status_ == QMP_SUCCESS)
            QMP_finalize_msg_passing();
    }
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    /* QMP_SUCCESS, or why init failed (QMP is then not usable). */
    QMP_status_t status() const { return status_; }
    explicit operator bool() const { return status_ == QMP_SUCCESS; }
    /* The thread level granted (meaningful after a successful init). */
    QMP_thread_level_t provided() const { return provided_; }

  private:
    QMP_thread_level_t provided_ = QMP_THREAD_SINGLE;
    QMP_status_t status_;
};

/* ================================================================ the allocated machine */

/* Processes of this job on this node. */
inline QMP_u32_t getSMPCount(void)
{
    return QMP_get_SMP_count();
}

/* QMP_MESH when the processes have mesh / torus coordinates, else QMP_SWITCH. */
inline QMP_ictype_t getMsgPassingType(void)
{
    return QMP_get_msg_passing_type();
}

/* Nodes (processes) in the job, and this one's number, 0 .. N-1. */
inline QMP_u32_t getNumberOfNodes(void)
{
    return static_cast<QMP_u32_t>(QMP_get_number_of_nodes());
}
inline QMP_u32_t getNodeNumber(void)
{
    return static_cast<QMP_u32_t>(QMP_get_node_number());
}

/* The allocated machine's grid.  The specification returns `const
 * QMP_u32_t` by value; a const scalar return means nothing (and warns under
 * -Wextra), so it is plain QMP_u32_t here and below.  As in QMP 2.x and
 * the 2002 text, a switched machine has 0 dimensions and NULL arrays; a
 * mesh (from coord, or -qmp-geom) has its grid.  The arrays belong to QMP
 * and stay valid until finalize. */
inline QMP_u32_t getAllocatedNumberOfDimensions(void)
{
    return static_cast<QMP_u32_t>(QMP_get_allocated_number_of_dimensions());
}
inline const QMP_u32_t *getAllocatedDimensions(void)
{
    return detail::as_u32(QMP_get_allocated_dimensions());
}
inline const QMP_u32_t *getAllocatedCoordinates(void)
{
    return detail::as_u32(QMP_get_allocated_coordinates());
}

/* ================================================================ the logical machine */

/* Make the logical machine a grid of dims[0] x ... x dims[ndim-1] nodes
 * (their product must be the number of nodes; once only).  QMP_TRUE on
 * success; on failure the reason is QMP_get_error_number(NULL). */
inline QMP_bool_t declareLogicalTopology(const QMP_u32_t *dims, QMP_u32_t ndim)
{
    if (!detail::fits_int(ndim))
        return detail::to_bool(false);
    return detail::to_bool(
        QMP_declare_logical_topology(detail::as_int(dims), static_cast<int>(ndim)) == QMP_SUCCESS);
}

/* QMP_TRUE once a logical topology was declared (by declareLogicalTopology
 * or by layoutGrid). */
inline QMP_bool_t logicalTopologyIsDeclared(void)
{
    return QMP_logical_topology_is_declared();
}

/* The logical grid: 0 dimensions and NULL arrays until a topology is
 * declared (as QMP 2.x answers); the arrays belong to QMP and stay valid
 * until finalize. */
inline QMP_u32_t getLogicalNumberOfDimensions(void)
{
    return static_cast<QMP_u32_t>(QMP_get_logical_number_of_dimensions());
}
inline const QMP_u32_t *getLogicalDimensions(void)
{
    return detail::as_u32(QMP_get_logical_dimensions());
}
inline const QMP_u32_t *getLogicalCoordinates(void)
{
    return detail::as_u32(QMP_get_logical_coordinates());
}

/* The node at logical coordinates coor[0 .. getLogicalNumberOfDimensions()-1].
 * Decision: an error (no topology, coordinates outside the grid) gives
 * QMP_u32_t(-1), which is never a node number. */
inline QMP_u32_t getNodeNumberFrom(const QMP_u32_t *coor)
{
    int node = QMP_get_node_number_from(detail::as_int(coor));
    return node < 0 ? static_cast<QMP_u32_t>(-1) : static_cast<QMP_u32_t>(node);
}

/* The logical coordinates of node `nodenum`, as a vector (empty on error:
 * no topology, node out of range; the reason is QMP_get_error_number(NULL)). */
inline std::vector<QMP_u32_t> logicalCoordinatesFrom(QMP_u32_t nodenum)
{
    struct FreeDeleter {
        void operator()(int *p) const { std::free(p); }
    };
    std::vector<QMP_u32_t> coords;
    if (!detail::fits_int(nodenum))
        return coords;
    std::unique_ptr<int, FreeDeleter> c(
        QMP_get_logical_coordinates_from(static_cast<int>(nodenum)));
    if (c) {
        int ndim = QMP_get_logical_number_of_dimensions();
        coords.assign(c.get(), c.get() + (ndim > 0 ? ndim : 0));
    }
    return coords;
}

/* The logical coordinates of node `nodenum` (the specification's form).
 * Decision: the C call's result belongs to the caller but the
 * specification's returns `const QMP_u32_t *` that nobody frees, so the
 * coordinates are kept per thread: the pointer is valid until the next call
 * from the same thread.  NULL on error.  Prefer logicalCoordinatesFrom. */
inline const QMP_u32_t *getLogicalCoordinatesFrom(QMP_u32_t nodenum)
{
    static thread_local std::vector<QMP_u32_t> last;
    last = logicalCoordinatesFrom(nodenum);
    return last.empty() ? nullptr : last.data();
}

/* The specification's spelling of getLogicalCoordinatesFrom. */
inline const QMP_u32_t *getLogicalCoordinatedFrom(QMP_u32_t nodenum)
{
    return getLogicalCoordinatesFrom(nodenum);
}

/* ================================================================ lattice layout */

/* Divide a lattice of lattDim[0] x ... x lattDim[ndims-1] sites among the
 * nodes (declaring the logical topology if none was declared), with QMP
 * 2.x's rule.  QMP_TRUE on success, else the reason is
 * QMP_get_error_number(NULL). */
inline QMP_bool_t layoutGrid(const QMP_u32_t *lattDim, QMP_u32_t ndims)
{
    if (!detail::fits_int(ndims))
        return detail::to_bool(false);
    return detail::to_bool(QMP_layout_grid(detail::as_int(lattDim), static_cast<int>(ndims)) ==
                           QMP_SUCCESS);
}

/* This node's part of the lattice (valid after layoutGrid; owned by QMP). */
inline const QMP_u32_t *getSubgridDimensions(void)
{
    return detail::as_u32(QMP_get_subgrid_dimensions());
}
/* Sites in this node's part of the lattice. */
inline QMP_u32_t getNumberOfSubgridSites(void)
{
    return static_cast<QMP_u32_t>(QMP_get_number_of_subgrid_sites());
}

/* ================================================================ errors and memory */

/* The text of a status code (owned by QMP, static). */
inline const char *errorString(QMP_status_t code)
{
    return QMP_error_string(code);
}

/* nbytes of memory aligned for messaging (QMP_ALIGN_DEFAULT), or NULL.
 * Free it with freeAlignedMemory. */
inline void *allocateAlignedMemory(QMP_u32_t nbytes)
{
    QMP_mem_t *mem = QMP_allocate_aligned_memory(nbytes, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
    return mem ? QMP_get_memory_pointer(mem) : nullptr;
}

/* Free what allocateAlignedMemory returned (NULL is ignored). */
inline void freeAlignedMemory(void *ab)
{
    if (ab)
        QMP_free_aligned_memory(ab);
}

/* Deleter for aligned memory owned by a std::unique_ptr. */
struct AlignedMemoryDeleter {
    void operator()(void *p) const { freeAlignedMemory(p); }
};
typedef std::unique_ptr<void, AlignedMemoryDeleter> AlignedMemoryPtr;

/* nbytes of aligned memory, freed when the returned pointer goes (empty on
 * failure). */
inline AlignedMemoryPtr makeAlignedMemory(std::size_t nbytes,
                                          std::size_t alignment = QMP_ALIGN_DEFAULT,
                                          int flags = QMP_MEM_DEFAULT)
{
    QMP_mem_t *mem = QMP_allocate_aligned_memory(nbytes, alignment, flags);
    return AlignedMemoryPtr(mem ? QMP_get_memory_pointer(mem) : nullptr);
}

/* ================================================================ message memory */

/* The memory a message is sent from or received into: contiguous, strided
 * (blocks at a fixed distance), an array of strided pieces, or indexed.
 * Owns its QMP_msgmem_t; the memory itself stays the caller's.  The
 * MessageMemory (and the memory it describes) must outlive every operation
 * declared on it.  Move-only. */
class MessageMemory
{
  public:
    /* Nothing declared yet (valid() is false); use Init. */
    MessageMemory(void) {}
    ~MessageMemory(void) { reset(); }

    /* nblocks blocks of blksize bytes, `stride` bytes apart (start to
     * start).  Decision: stride 0 (the default) means the blocks are
     * adjacent, so (buffer, n) and (buffer, n, 1) are contiguous memory of n
     * bytes.  On failure valid() is false and status() says why. */
    MessageMemory(const void *buffer, QMP_u32_t blksize, QMP_u32_t nblocks = 1,
                  QMP_u32_t stride = 0)
    {
        Init(buffer, blksize, nblocks, stride);
    }
    /* The same for memory that will be received into: a receive buffer not
     * yet written binds here, so GCC does not take it for an uninitialised
     * value read through `const void *` (-Wmaybe-uninitialized). */
    MessageMemory(void *buffer, QMP_u32_t blksize, QMP_u32_t nblocks = 1, QMP_u32_t stride = 0)
    {
        Init(buffer, blksize, nblocks, stride);
    }

    /* n strided pieces: piece i is nblocks[i] blocks of blksize[i] bytes,
     * stride[i] bytes apart, from buffer[i] (stride 0: adjacent, as above).
     * The message is the pieces in order. */
    MessageMemory(const void **buffer, QMP_u32_t *blksize, QMP_u32_t *nblocks, QMP_u32_t *stride,
                  QMP_u32_t n)
    {
        if (!detail::fits_int(n) || n == 0) {
            status_ = QMP_INVALID_ARG;
            return;
        }
        std::vector<void *> bases(n);
        std::vector<std::size_t> sizes(n);
        std::vector<int> counts(n);
        std::vector<std::ptrdiff_t> strides(n);
        for (QMP_u32_t i = 0; i < n; ++i) {
            if (!detail::fits_int(nblocks[i])) {
                status_ = QMP_INVALID_ARG;
                return;
            }
            bases[i] = const_cast<void *>(buffer[i]);
            sizes[i] = blksize[i];
            counts[i] = static_cast<int>(nblocks[i]);
            strides[i] = stride[i] == 0 ? static_cast<std::ptrdiff_t>(blksize[i])
                                        : static_cast<std::ptrdiff_t>(stride[i]);
        }
        *this = stridedArray(bases.data(), sizes.data(), counts.data(), strides.data(),
                             static_cast<int>(n));
    }

    MessageMemory(const MessageMemory &) = delete;
    MessageMemory &operator=(const MessageMemory &) = delete;
    MessageMemory(MessageMemory &&other) noexcept { *this = std::move(other); }
    MessageMemory &operator=(MessageMemory &&other) noexcept
    {
        if (this != &other) {
            reset();
            mem_ = other.mem_;
            status_ = other.status_;
            other.mem_ = nullptr;
            other.status_ = QMP_SUCCESS;
            arrays_ = std::move(other.arrays_);
        }
        return *this;
    }

    /* (Re)declare as the (buffer, blksize, nblocks, stride) constructor
     * does, freeing what was declared before: no operation may still use it. */
    void Init(const void *buffer, QMP_u32_t blksize, QMP_u32_t nblocks = 1, QMP_u32_t stride = 0)
    {
        Init(const_cast<void *>(buffer), blksize, nblocks, stride);
    }
    void Init(void *buffer, QMP_u32_t blksize, QMP_u32_t nblocks = 1, QMP_u32_t stride = 0)
    {
        if (!detail::fits_int(nblocks)) {
            reset();
            status_ = QMP_INVALID_ARG;
            return;
        }
        if (nblocks <= 1 || stride == 0 || stride == blksize)
            *this = contiguous(buffer, static_cast<std::size_t>(blksize) * nblocks);
        else
            *this = strided(buffer, blksize, static_cast<int>(nblocks),
                            static_cast<std::ptrdiff_t>(stride));
    }

    /* -- named constructors, over the C calls of the same meaning */

    /* nbytes from mem (QMP_declare_msgmem). */
    static MessageMemory contiguous(const void *mem, std::size_t nbytes)
    {
        return MessageMemory(QMP_declare_msgmem(mem, nbytes));
    }
    /* nblocks blocks of blksize bytes, `stride` bytes apart, start to start;
     * the stride may be negative (QMP_declare_strided_msgmem). */
    static MessageMemory strided(void *base, std::size_t blksize, int nblocks,
                                 std::ptrdiff_t stride)
    {
        return MessageMemory(QMP_declare_strided_msgmem(base, blksize, nblocks, stride));
    }
    /* num strided pieces (QMP_declare_strided_array_msgmem).  The arrays are
     * copied and kept with the declaration. */
    static MessageMemory stridedArray(void *const base[], const std::size_t blksize[],
                                      const int nblocks[], const std::ptrdiff_t stride[], int num)
    {
        if (num <= 0)
            return MessageMemory(QMP_INVALID_ARG);
        std::shared_ptr<Arrays> a = std::make_shared<Arrays>();
        a->bases.assign(base, base + num);
        a->sizes.assign(blksize, blksize + num);
        a->counts.assign(nblocks, nblocks + num);
        a->strides.assign(stride, stride + num);
        MessageMemory m(QMP_declare_strided_array_msgmem(a->bases.data(), a->sizes.data(),
                                                         a->counts.data(), a->strides.data(), num));
        m.arrays_ = std::move(a);
        return m;
    }
    /* count blocks of blocklen[i] elements of elemsize bytes, block i
     * starting at element index[i] from base (QMP_declare_indexed_msgmem).
     * The arrays are copied and kept with the declaration. */
    static MessageMemory indexed(void *base, const int blocklen[], const int index[], int elemsize,
                                 int count)
    {
        if (count <= 0)
            return MessageMemory(QMP_INVALID_ARG);
        std::shared_ptr<Arrays> a = std::make_shared<Arrays>();
        a->counts.assign(blocklen, blocklen + count);
        a->index.assign(index, index + count);
        MessageMemory m(
            QMP_declare_indexed_msgmem(base, a->counts.data(), a->index.data(), elemsize, count));
        m.arrays_ = std::move(a);
        return m;
    }

    /* The C handle (NULL when nothing is declared); still owned here. */
    QMP_msgmem_t get() const { return mem_; }
    bool valid() const { return mem_ != nullptr; }
    explicit operator bool() const { return valid(); }
    /* QMP_SUCCESS, or why the last declaration failed. */
    QMP_status_t status() const { return status_; }

    /* Give the handle up: the caller frees it with QMP_free_msgmem. */
    QMP_msgmem_t release()
    {
        QMP_msgmem_t m = mem_;
        mem_ = nullptr;
        return m;
    }

  private:
    // Copies of the description arrays, in case the C layer refers to them.
    struct Arrays {
        std::vector<void *> bases;
        std::vector<std::size_t> sizes;
        std::vector<int> counts;
        std::vector<std::ptrdiff_t> strides;
        std::vector<int> index;
    };

    explicit MessageMemory(QMP_msgmem_t mem)
        : mem_(mem), status_(mem ? QMP_SUCCESS : detail::last_error())
    {
    }
    explicit MessageMemory(QMP_status_t failure) : status_(failure) {}

    void reset()
    {
        if (mem_)
            QMP_free_msgmem(mem_);
        mem_ = nullptr;
        status_ = QMP_SUCCESS;
        arrays_.reset();
    }

    QMP_msgmem_t mem_ = nullptr;
    QMP_status_t status_ = QMP_SUCCESS;
    std::shared_ptr<Arrays> arrays_;
};

/* ================================================================ operations */

/* A message operation: start it, then test or wait for its completion, as
 * often as needed (channels are persistent). */
class MessageOperation
{
  public:
    virtual ~MessageOperation() {}

    /* Start the operation.  QMP_SUCCESS or the reason. */
    virtual QMP_status_t start(void) = 0;
    /* QMP_TRUE once the started operation has completed.  Decision: the
     * specification types this QMP_status_t, whose success value 0 would
     * read backwards in `while (!op.isComplete())`; it is QMP_bool_t as in
     * the C API.  A failed or undeclared operation reports QMP_TRUE (nothing
     * is in flight, so a polling loop ends) and getErrorNumber() says why. */
    virtual QMP_bool_t isComplete(void) = 0;
    /* Wait until the started operation completes (or fails: a dead peer or
     * the transport's timeout gives an error, never a hang). */
    virtual QMP_status_t wait(void) = 0;
    /* The operation's last error (QMP_SUCCESS if none). */
    virtual QMP_status_t getErrorNumber(void) const = 0;
    /* Its text (owned by QMP). */
    virtual const char *getErrorString(void) = 0;

  protected:
    MessageOperation() {}
    MessageOperation(const MessageOperation &) = delete;
    MessageOperation &operator=(const MessageOperation &) = delete;
    MessageOperation(MessageOperation &&) noexcept {}
    MessageOperation &operator=(MessageOperation &&) noexcept { return *this; }
};

class MultiOperation;

/* One send or one receive, to a neighbour along a dimension of the logical
 * topology or to a node by number.  Owns its QMP_msghandle_t.  Move-only.
 *
 * Decision ("it is NOT allowed to re-use MessageOperations"): an operation
 * is declared once; declaring again returns QMP_CHDEF_ERR.  Starting and
 * waiting again and again is what it is for.
 *
 * Inside a MultiOperation (QMP_declare_multiple, which in QMP 2.x takes the
 * handles over) the operation may still be started, tested and waited on
 * alone; its handle is freed with the MultiOperation's, after which the
 * operation is undeclared (its calls return QMP_INVALID_OP). */
class SingleOperation : public MessageOperation
{
  public:
    SingleOperation(void) {}
    ~SingleOperation(void) override { reset(); }
    SingleOperation(SingleOperation &&other) noexcept
        : MessageOperation(std::move(other)), slot_(std::move(other.slot_)), status_(other.status_)
    {
    }
    SingleOperation &operator=(SingleOperation &&other) noexcept
    {
        if (this != &other) {
            reset();
            slot_ = std::move(other.slot_);
            status_ = other.status_;
        }
        return *this;
    }

    /* Send mm to the neighbour at `sign` along `dimension` of the logical
     * topology (QMP_declare_send_relative).  mm must outlive this operation. */
    QMP_status_t declareSend(MessageMemory *mm, QMP_s32_t dimension, SIGN sign,
                             QMP_s32_t priority = DEFAULT_PRIORITY)
    {
        return declare(mm, QMP_declare_send_relative, dimension, sign, priority);
    }
    /* Send mm to node remoteHost (QMP_declare_send_to). */
    QMP_status_t declareSend(MessageMemory *mm, QMP_s32_t remoteHost,
                             QMP_s32_t priority = DEFAULT_PRIORITY)
    {
        return declare(mm, QMP_declare_send_to, remoteHost, priority);
    }
    /* Receive into mm from the neighbour at `sign` along `dimension`
     * (QMP_declare_receive_relative): the node that sends with the opposite
     * sign. */
    QMP_status_t declareReceive(MessageMemory *mm, QMP_s32_t dimension, SIGN sign,
                                QMP_s32_t priority = DEFAULT_PRIORITY)
    {
        return declare(mm, QMP_declare_receive_relative, dimension, sign, priority);
    }
    /* Receive into mm from node remoteHost (QMP_declare_receive_from). */
    QMP_status_t declareReceive(MessageMemory *mm, QMP_s32_t remoteHost,
                                QMP_s32_t priority = DEFAULT_PRIORITY)
    {
        return declare(mm, QMP_declare_receive_from, remoteHost, priority);
    }

    QMP_status_t start(void) override
    {
        return record(handle() ? QMP_start(handle()) : QMP_INVALID_OP);
    }
    QMP_bool_t isComplete(void) override
    {
        if (!handle()) {
            status_ = QMP_INVALID_OP;
            return detail::to_bool(true);
        }
        return QMP_is_complete(handle());
    }
    QMP_status_t wait(void) override
    {
        return record(handle() ? QMP_wait(handle()) : QMP_INVALID_OP);
    }
    QMP_status_t getErrorNumber(void) const override
    {
        if (status_ != QMP_SUCCESS || !handle())
            return status_;
        return QMP_get_error_number(handle());
    }
    const char *getErrorString(void) override
    {
        if (status_ != QMP_SUCCESS || !handle())
            return QMP_error_string(status_);
        return QMP_get_error_string(handle());
    }

    /* The C handle (NULL when not declared); still owned here or by the
     * MultiOperation that holds it. */
    QMP_msghandle_t get() const { return handle(); }
    bool valid() const { return handle() != nullptr; }
    explicit operator bool() const { return valid(); }

  private:
    friend class MultiOperation;
    // Shared with a MultiOperation that took the handle over, so either
    // side sees when the other freed it.
    struct Slot {
        QMP_msghandle_t handle = nullptr;
        bool in_multiple = false;
    };

    QMP_msghandle_t handle() const { return slot_ ? slot_->handle : nullptr; }

    /* Declare this operation's handle with fn(mm's msgmem, args...),
     * unless it has one, or mm is not usable. */
    template <typename Declare, typename... Args>
    QMP_status_t declare(MessageMemory *mm, Declare fn, Args... args)
    {
        if (handle() || (slot_ && slot_->in_multiple))
            return status_ = QMP_CHDEF_ERR;
        if (!mm || !mm->valid())
            return status_ = QMP_INVALID_ARG;
        return adopt(fn(mm->get(), args...));
    }
    QMP_status_t adopt(QMP_msghandle_t h)
    {
        if (!h)
            return status_ = detail::last_error();
        slot_ = std::make_shared<Slot>();
        slot_->handle = h;
        return status_ = QMP_SUCCESS;
    }
    QMP_status_t record(QMP_status_t status) { return status_ = status; }
    void reset()
    {
        if (slot_ && slot_->handle && !slot_->in_multiple)
            QMP_free_msghandle(slot_->handle);
        slot_.reset();
        status_ = QMP_SUCCESS;
    }

    std::shared_ptr<Slot> slot_;
    QMP_status_t status_ = QMP_SUCCESS;
};

/* Several SingleOperations started, tested and waited on as one
 * (QMP_declare_multiple).  The specification: no two of them on the same
 * wire or node in the same direction.  Owns the multiple handle and, as QMP
 * 2.x's QMP_declare_multiple does, the members' handles from then on: the
 * members may still be waited on alone while the MultiOperation lives, and
 * are undeclared once it is destroyed.  Declared once (init again returns
 * with getErrorNumber() == QMP_CHDEF_ERR).  Move-only. */
class MultiOperation : public MessageOperation
{
  public:
    MultiOperation(void) {}
    ~MultiOperation(void) override { reset(); }
    /* An array of nmsgops operations. */
    MultiOperation(SingleOperation *msgops, QMP_u32_t nmsgops) { init(msgops, nmsgops); }
    /* An array of nmsgops pointers to operations. */
    MultiOperation(SingleOperation **msgops, QMP_u32_t nmsgops) { init(msgops, nmsgops); }
    MultiOperation(MultiOperation &&other) noexcept
        : MessageOperation(std::move(other)), handle_(other.handle_),
          members_(std::move(other.members_)), status_(other.status_)
    {
        other.handle_ = nullptr;
    }
    MultiOperation &operator=(MultiOperation &&other) noexcept
    {
        if (this != &other) {
            reset();
            handle_ = other.handle_;
            members_ = std::move(other.members_);
            status_ = other.status_;
            other.handle_ = nullptr;
        }
        return *this;
    }

    void init(SingleOperation *msgops, QMP_u32_t nmsgops)
    {
        std::vector<SingleOperation *> ops;
        for (QMP_u32_t i = 0; msgops && i < nmsgops; ++i)
            ops.push_back(&msgops[i]);
        declare(ops, nmsgops);
    }
    void init(SingleOperation **msgops, QMP_u32_t nmsgops)
    {
        std::vector<SingleOperation *> ops;
        for (QMP_u32_t i = 0; msgops && i < nmsgops; ++i)
            ops.push_back(msgops[i]);
        declare(ops, nmsgops);
    }
    /* init({&send0, &recv0, ...}). */
    void init(std::initializer_list<SingleOperation *> msgops)
    {
        std::vector<SingleOperation *> ops(msgops);
        declare(ops, static_cast<QMP_u32_t>(ops.size()));
    }

    QMP_status_t start(void) override
    {
        return status_ = handle_ ? QMP_start(handle_) : QMP_INVALID_OP;
    }
    QMP_bool_t isComplete(void) override
    {
        if (!handle_) {
            if (status_ == QMP_SUCCESS)
                status_ = QMP_INVALID_OP;
            return detail::to_bool(true);
        }
        return QMP_is_complete(handle_);
    }
    QMP_status_t wait(void) override
    {
        return status_ = handle_ ? QMP_wait(handle_) : QMP_INVALID_OP;
    }
    QMP_status_t getErrorNumber(void) const override
    {
        if (status_ != QMP_SUCCESS || !handle_)
            return status_;
        return QMP_get_error_number(handle_);
    }
    const char *getErrorString(void) override
    {
        if (status_ != QMP_SUCCESS || !handle_)
            return QMP_error_string(status_);
        return QMP_get_error_string(handle_);
    }

    QMP_msghandle_t get() const { return handle_; }
    bool valid() const { return handle_ != nullptr; }
    explicit operator bool() const { return valid(); }

  private:
    void declare(const std::vector<SingleOperation *> &ops, QMP_u32_t n)
    {
        if (handle_) {
            status_ = QMP_CHDEF_ERR;
            return;
        }
        if (n == 0 || !detail::fits_int(n) || ops.size() != n) {
            status_ = QMP_INVALID_ARG;
            return;
        }
        std::vector<QMP_msghandle_t> handles;
        for (SingleOperation *op : ops) {
            if (!op || !op->valid() || op->slot_->in_multiple) {
                status_ =
                    op && op->slot_ && op->slot_->in_multiple ? QMP_CHDEF_ERR : QMP_INVALID_ARG;
                return;
            }
            handles.push_back(op->get());
        }
        handle_ = QMP_declare_multiple(handles.data(), static_cast<int>(n));
        if (!handle_) {
            status_ = detail::last_error();
            return;
        }
        status_ = QMP_SUCCESS;
        for (SingleOperation *op : ops) {
            op->slot_->in_multiple = true;
            members_.push_back(op->slot_);
        }
    }
    void reset()
    {
        if (handle_)
            QMP_free_msghandle(handle_);
        handle_ = nullptr;
        // The members' handles went with the multiple one.
        for (const std::shared_ptr<SingleOperation::Slot> &slot : members_)
            slot->handle = nullptr;
        members_.clear();
        status_ = QMP_SUCCESS;
    }

    QMP_msghandle_t handle_ = nullptr;
    std::vector<std::shared_ptr<SingleOperation::Slot>> members_;
    QMP_status_t status_ = QMP_SUCCESS;
};

/* ================================================================ collectives */
/* Over every node of the job, in place; the result is the same, bit for
 * bit, on every node.  QMP_SUCCESS or the reason. */

inline QMP_status_t sumInt(QMP_s32_t *i)
{
    return detail::through(i, QMP_sum_int);
}
inline QMP_status_t sumFloat(QMP_float_t *x)
{
    return QMP_sum_float(x);
}
inline QMP_status_t sumDouble(QMP_double_t *x)
{
    return QMP_sum_double(x);
}
/* Intermediate sums in extended precision where the machine has it. */
inline QMP_status_t sumDoubleExtended(QMP_double_t *x)
{
    return QMP_sum_double_extended(x);
}
/* Element by element, length elements. */
inline QMP_status_t sumFloatArray(QMP_float_t *x, QMP_u32_t length)
{
    return detail::array(x, length, QMP_sum_float_array);
}
inline QMP_status_t sumDoubleArray(QMP_double_t *x, QMP_u32_t length)
{
    return detail::array(x, length, QMP_sum_double_array);
}

/* maxInt / minInt have no C call.  Decision: they go through QMP_max_double
 * / QMP_min_double, which is exact (every 32-bit integer is a double, and
 * the maximum of such doubles is one of them) and uses the optimised
 * collective instead of a user-function reduction. */
inline QMP_status_t maxInt(QMP_s32_t *i)
{
    return detail::through(i, QMP_max_double);
}
inline QMP_status_t minInt(QMP_s32_t *i)
{
    return detail::through(i, QMP_min_double);
}
inline QMP_status_t maxFloat(QMP_float_t *x)
{
    return QMP_max_float(x);
}
inline QMP_status_t maxDouble(QMP_double_t *x)
{
    return QMP_max_double(x);
}
inline QMP_status_t minFloat(QMP_float_t *x)
{
    return QMP_min_float(x);
}
inline QMP_status_t minDouble(QMP_double_t *x)
{
    return QMP_min_double(x);
}

/* Reduce nbytes at localvalue with funcptr(inout, in) over every node. */
inline QMP_status_t binaryReduction(void *localvalue, QMP_u32_t nbytes, QMP_binary_func funcptr)
{
    return QMP_binary_reduction(localvalue, nbytes, funcptr);
}

/* Bitwise xor over every node.  The specification's C++ form takes a
 * QMP_u64_t (its C form a long): QMP_xor_ulong where unsigned long has 64
 * bits, else a binary reduction. */
inline QMP_status_t globalXor(QMP_u64_t *lval)
{
    return detail::global_xor_u64(
        lval, std::integral_constant<bool, sizeof(unsigned long) == sizeof(QMP_u64_t)>());
}

/* Copy nbytes at buf from node 0 to every node. */
inline QMP_status_t broadcast(void *buf, QMP_u32_t nbytes)
{
    return QMP_broadcast(buf, nbytes);
}

/* A barrier that gives up after `milliseconds` with QMP_TIMEOUT. */
inline QMP_status_t waitForBarrier(QMP_s32_t milliseconds)
{
    return QMP_wait_for_barrier(milliseconds);
}

/* A barrier without a time limit of its own (QMP_barrier). */
inline QMP_status_t barrier(void)
{
    return QMP_barrier();
}

} // namespace QMP

#ifndef QMP_CXX_NO_GLOBAL_SIGN
using QMP::MINUS;
using QMP::PLUS;
using QMP::SIGN;
#endif

#endif /* QMP_HPP */
