    s = op->def->validate(op, t, err);
    s = op->def->eval(op, &x);
    if (before(ctx, a, b)) c++;
    return f32->validate(&lop, t, err);
