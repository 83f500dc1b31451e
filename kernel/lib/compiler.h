/* Small helpers over GCC attributes and builtins, used across the kernel. */
#ifndef FULCRUM_LIB_COMPILER_H
#define FULCRUM_LIB_COMPILER_H

#define __packed       __attribute__((packed))
#define __aligned(x)   __attribute__((aligned(x)))
#define __noreturn     __attribute__((noreturn))
#define __noinline     __attribute__((noinline))
/* No inlining, cloning or signature changes: the function stays as written, under its name. */
#define __noipa	       __attribute__((noipa))
#define __unused       __attribute__((unused))
#define __used	       __attribute__((used))
#define __section(s)   __attribute__((section(s)))
#define __printf(f, a) __attribute__((format(printf, f, a)))

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a)	 (sizeof(a) / sizeof((a)[0]))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define ALIGN_UP(x, a)	 ALIGN_DOWN((x) + (a)-1, (a))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a)-1)) == 0)
#define MIN(a, b)	 ((a) < (b) ? (a) : (b))
#define MAX(a, b)	 ((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* Forces a real memory access; keeps the compiler from caching or merging it. */
#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif
