package dev.baton.spring.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How messages name a method: {@code OrderService.pay(String, int)}, with simple type names, so that a startup error
 * or an exception points at the code without quoting any argument value.
 */
final class MethodLabel {

    private MethodLabel() {
    }

    /**
     * @param method the method
     * @return its declaring class's simple name, its name and its parameter types
     */
    static String of(Method method) {
        return of(method.getDeclaringClass(), method);
    }

    /**
     * @param type   the class the method is reported on (the bean's class)
     * @param method the method
     * @return the class's name, the method's name and its parameter types
     */
    static String of(Class<?> type, Method method) {
        return type.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
