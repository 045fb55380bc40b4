package dev.baton.spring.aop;

import org.springframework.asm.Opcodes;

/**
 * The effect of the JVM's operand-free instructions on the operand stack, in slots (a long or a double takes two):
 * how many they pop and how many they push. The stack-shuffling ones ({@code DUP*}, {@code SWAP}) and those that end a
 * block (returns, {@code ATHROW}) are handled by {@link SelfInvocationScanner} itself. From the JVM specification,
 * chapter 6.
 */
final class InstructionEffect {

    private static final int[] NONE = {0, 0};

    private InstructionEffect() {
    }

    /**
     * @param opcode an instruction without operands
     * @return {pops, pushes}
     */
    static int[] of(int opcode) {
        return switch (opcode) {
            case Opcodes.ACONST_NULL, Opcodes.ICONST_M1, Opcodes.ICONST_0, Opcodes.ICONST_1, Opcodes.ICONST_2,
                 Opcodes.ICONST_3, Opcodes.ICONST_4, Opcodes.ICONST_5, Opcodes.FCONST_0, Opcodes.FCONST_1,
                 Opcodes.FCONST_2 -> new int[] {0, 1};
            case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1 -> new int[] {0, 2};
            case Opcodes.IALOAD, Opcodes.FALOAD, Opcodes.AALOAD, Opcodes.BALOAD, Opcodes.CALOAD, Opcodes.SALOAD ->
                    new int[] {2, 1};
            case Opcodes.LALOAD, Opcodes.DALOAD -> new int[] {2, 2};
            case Opcodes.IASTORE, Opcodes.FASTORE, Opcodes.AASTORE, Opcodes.BASTORE, Opcodes.CASTORE,
                 Opcodes.SASTORE -> new int[] {3, 0};
            case Opcodes.LASTORE, Opcodes.DASTORE -> new int[] {4, 0};
            case Opcodes.POP, Opcodes.MONITORENTER, Opcodes.MONITOREXIT -> new int[] {1, 0};
            case Opcodes.POP2 -> new int[] {2, 0};
            case Opcodes.IADD, Opcodes.FADD, Opcodes.ISUB, Opcodes.FSUB, Opcodes.IMUL, Opcodes.FMUL, Opcodes.IDIV,
                 Opcodes.FDIV, Opcodes.IREM, Opcodes.FREM, Opcodes.ISHL, Opcodes.ISHR, Opcodes.IUSHR, Opcodes.IAND,
                 Opcodes.IOR, Opcodes.IXOR, Opcodes.FCMPL, Opcodes.FCMPG -> new int[] {2, 1};
            case Opcodes.LADD, Opcodes.DADD, Opcodes.LSUB, Opcodes.DSUB, Opcodes.LMUL, Opcodes.DMUL, Opcodes.LDIV,
                 Opcodes.DDIV, Opcodes.LREM, Opcodes.DREM, Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR -> new int[] {4, 2};
            case Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR -> new int[] {3, 2};
            case Opcodes.LCMP, Opcodes.DCMPL, Opcodes.DCMPG -> new int[] {4, 1};
            case Opcodes.INEG, Opcodes.FNEG, Opcodes.I2F, Opcodes.F2I, Opcodes.I2B, Opcodes.I2C, Opcodes.I2S,
                 Opcodes.ARRAYLENGTH -> new int[] {1, 1};
            case Opcodes.LNEG, Opcodes.DNEG, Opcodes.L2D, Opcodes.D2L -> new int[] {2, 2};
            case Opcodes.I2L, Opcodes.I2D, Opcodes.F2L, Opcodes.F2D -> new int[] {1, 2};
            case Opcodes.L2I, Opcodes.L2F, Opcodes.D2I, Opcodes.D2F -> new int[] {2, 1};
            default -> NONE; // NOP
        };
    }
}
