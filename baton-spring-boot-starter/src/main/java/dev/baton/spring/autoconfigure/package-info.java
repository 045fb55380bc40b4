/** Spring Boot auto-configuration of Baton. */
package dev.baton.spring.autoconfigure;
