/**
 * The Baton demo ({@code java -jar baton-demo.jar}): worker processes contend for one distributed lock while each
 * increments a shared counter unsafely and presents its fencing token to a resource that rejects stale ones; the
 * parent checks that no increment was lost and no token went backwards. {@link dev.baton.demo.Demo} is the entry
 * point, {@link dev.baton.demo.DemoWorker} the worker process.
 */
package dev.baton.demo;
