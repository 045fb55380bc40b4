package dev.baton.spring.aop;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * What a skipped method returns when its annotation names no result: the empty value of its declared return type. An
 * {@code Optional} is empty, a collection, map or stream is empty (mutable for the common interfaces, since a caller
 * may add to what it got), a primitive is its zero or false; anything else, {@code void} included, is null. Chosen
 * once per method; thread-safe.
 */
final class EmptyReturnValue {

    private static final Map<Class<?>, Supplier<Object>> EMPTY = new LinkedHashMap<>();

    static {
        EMPTY.put(boolean.class, () -> false);
        EMPTY.put(char.class, () -> '\0');
        EMPTY.put(byte.class, () -> (byte) 0);
        EMPTY.put(short.class, () -> (short) 0);
        EMPTY.put(int.class, () -> 0);
        EMPTY.put(long.class, () -> 0L);
        EMPTY.put(float.class, () -> 0f);
        EMPTY.put(double.class, () -> 0d);
        EMPTY.put(Optional.class, Optional::empty);
        EMPTY.put(OptionalInt.class, OptionalInt::empty);
        EMPTY.put(OptionalLong.class, OptionalLong::empty);
        EMPTY.put(OptionalDouble.class, OptionalDouble::empty);
        EMPTY.put(Stream.class, Stream::empty);
        EMPTY.put(IntStream.class, IntStream::empty);
        EMPTY.put(LongStream.class, LongStream::empty);
        EMPTY.put(DoubleStream.class, DoubleStream::empty);
        EMPTY.put(List.class, ArrayList::new);
        EMPTY.put(ArrayList.class, ArrayList::new);
        EMPTY.put(Collection.class, ArrayList::new);
        EMPTY.put(Iterable.class, ArrayList::new);
        EMPTY.put(Set.class, LinkedHashSet::new);
        EMPTY.put(HashSet.class, HashSet::new);
        EMPTY.put(LinkedHashSet.class, LinkedHashSet::new);
        EMPTY.put(SortedSet.class, TreeSet::new);
        EMPTY.put(NavigableSet.class, TreeSet::new);
        EMPTY.put(TreeSet.class, TreeSet::new);
        EMPTY.put(Map.class, LinkedHashMap::new);
        EMPTY.put(HashMap.class, HashMap::new);
        EMPTY.put(LinkedHashMap.class, LinkedHashMap::new);
        EMPTY.put(SortedMap.class, TreeMap::new);
        EMPTY.put(NavigableMap.class, TreeMap::new);
        EMPTY.put(TreeMap.class, TreeMap::new);
    }

    private static final Supplier<Object> NULL = () -> null;

    private EmptyReturnValue() {
    }

    /**
     * @param returnType a method's declared return type
     * @return a supplier of its empty value (a fresh one each time for mutable types)
     */
    static Supplier<Object> of(Class<?> returnType) {
        Supplier<Object> empty = EMPTY.get(returnType);
        if (empty != null) {
            return empty;
        }
        if (returnType.isArray()) {
            Object array = java.lang.reflect.Array.newInstance(returnType.getComponentType(), 0);
            return () -> array; // an empty array cannot be changed: one is enough
        }
        return NULL;
    }
}
