package dev.baton.spring.aop;

/** A bean that keys refer to as {@code @lockKeys}. */
public class LockKeys {

    public String prefix() {
        return "bean:";
    }
}
