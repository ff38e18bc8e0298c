// Tests run on Node 20 here; the functions deploy on nodejs22.x. Silence the SDK's notice about it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
