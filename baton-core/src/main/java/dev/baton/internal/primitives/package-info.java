/**
 * Where the families meet: {@code Primitives} builds every primitive of a Baton on its engine, picks the drivers for
 * the topology and refuses what a topology cannot run; {@code NameInspection} reads every kind under one name. The
 * only package that imports every family. Internal: not exported.
 */
package dev.baton.internal.primitives;
