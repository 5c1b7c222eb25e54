// jsdom for TestBed, with Node's own fetch and the web classes it checks its arguments against:
// jsdom's AbortSignal or ReadableStream are other classes than the ones Node's fetch knows, and
// jsdom has no fetch. The chat's tests stream from real HTTP servers on loopback.
'use strict';
const JsdomEnvironment = require('jest-preset-angular/environments/jest-jsdom-env');

const NODE_GLOBALS = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'AbortController',
  'AbortSignal',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'TextDecoder',
  'TextEncoder',
  'TextDecoderStream',
  'setImmediate',
  'clearImmediate',
  'structuredClone',
];

class RxscopeAngularEnvironment extends JsdomEnvironment.default {
  constructor(config, context) {
    super(config, context);
    for (const name of NODE_GLOBALS) this.global[name] = globalThis[name];
  }
}

module.exports = RxscopeAngularEnvironment;
