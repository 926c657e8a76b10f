#include "textflag.h"
#include "go_asm.h"

// func startSteps(p *program) (pid uintptr)
//
// Blocks every signal, clones with p.flags (CLONE_VM|CLONE_VFORK: the child
// runs in our memory while this thread waits) and restores the signal mask.
// The child runs p's steps, system call after system call, from registers
// only: it never returns, never calls, never touches the stack, so that
// nothing of the Go runtime runs in it. A checked step that fails writes
// its number and errno into p and ends the child with status 127; the last
// step is execve. pid is the child's, or -errno when clone failed.
TEXT ·startSteps(SB),NOSPLIT|NOFRAME,$0-16
	MOVQ	p+0(FP), R12
	MOVQ	$14, AX			// rt_sigprocmask(SIG_SETMASK, &p.all, &p.old, 8)
	MOVQ	$2, DI
	LEAQ	program_all(R12), SI
	LEAQ	program_old(R12), DX
	MOVQ	$8, R10
	SYSCALL
	MOVQ	$56, AX			// clone(p.flags, 0, 0, 0, 0)
	MOVQ	program_flags(R12), DI
	XORQ	SI, SI
	XORQ	DX, DX
	XORQ	R10, R10
	XORQ	R8, R8
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	MOVQ	AX, R13
	MOVQ	$14, AX			// rt_sigprocmask(SIG_SETMASK, &p.old, nil, 8)
	MOVQ	$2, DI
	LEAQ	program_old(R12), SI
	XORQ	DX, DX
	MOVQ	$8, R10
	SYSCALL
	MOVQ	R13, pid+8(FP)
	RET

child:
	MOVQ	program_steps(R12), R13
	XORQ	R14, R14		// the step's number
loop:
	CMPQ	R14, program_n(R12)
	JGE	exit
	MOVQ	step_nr(R13), AX
	MOVQ	(step_args+0)(R13), DI
	MOVQ	(step_args+8)(R13), SI
	MOVQ	(step_args+16)(R13), DX
	MOVQ	(step_args+24)(R13), R10
	MOVQ	(step_args+32)(R13), R8
	MOVQ	(step_args+40)(R13), R9
	SYSCALL
	MOVQ	step_store(R13), BX
	TESTQ	BX, BX
	JEQ	stored
	MOVQ	AX, 0(BX)
stored:
	CMPQ	step_check(R13), $0
	JEQ	next
	CMPQ	AX, $-4095		// -4095 <= AX < 0, unsigned: an errno
	JCS	next
	INCQ	R14
	MOVQ	R14, program_failed(R12)
	NEGQ	AX
	MOVQ	AX, program_errno(R12)
	JMP	exit
next:
	ADDQ	$step__size, R13
	INCQ	R14
	JMP	loop
exit:
	MOVQ	$231, AX		// exit_group(127)
	MOVQ	$127, DI
	SYSCALL
	JMP	exit
