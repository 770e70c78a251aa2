import json
dr=json.load(open('prims_dr.json')); sr=json.load(open('prims_sr.json'))
out=[]
def arr(name, rows, typ):
    out.append('static const %s %s[][%d] = {' % (typ, name, len(rows[0])))
    line='   '
    for r in rows:
        s=' {%s},' % ', '.join(('INT32_MIN' if x==-2147483648 else str(x)) for x in r)
        if len(line)+len(s)>96: out.append(line); line='   '
        line+=s
    out.append(line); out.append('};')
# requant subset: every shift, multipliers {2^30, 1288490189, INT32_MAX}, vals that show ties & extremes
keep_m={1073741824,1288490189,2147483647}
keep_v={-3,-2,-1,1,2,3,5,77,-65536,65535,-1000000007,999999937}
rq=[]
for a,b in zip(dr['requant'],sr['requant']):
    x,m,s,r=a; assert b[:3]==a[:3]
    if m in keep_m and (x in keep_v or abs(x)>=2**30):
        rq.append([x,m,s,r,b[3]])
arr('k_tfl_requant', rq, 'int32_t')
for k in ['exp5','exp4','exp0','exp6','recip','omxopx','logistic4','tanh4']:
    assert dr[k]==sr[k]
    arr('k_tfl_'+k, dr[k], 'int32_t')
print('\n'.join(out))
print('/* %d requant rows */' % len(rq), file=__import__('sys').stderr)
odr=json.load(open('ops_dr.json')); osr=json.load(open('ops_sr.json'))
o=[]
o.append('/* int8 softmax rows: TFLite reference_ops::Softmax, parameters from')
o.append(' * PreprocessSoftmaxScaling / CalculateInputRadius in each rounding mode. */')
o.append('struct softmax_case {\n    int32_t rows, n, mult_dr, shift_dr, diff_min_dr, mult_sr, shift_sr, diff_min_sr;\n    int8_t x[120], y_dr[120], y_sr[120];\n};')
o.append('static const struct softmax_case k_tfl_softmax[] = {')
sel=[i for i,(a,b) in enumerate(zip(odr['softmax'],osr['softmax'])) if i<8 or a!=b]
for i in sel:
    a=odr['softmax'][i]; b=osr['softmax'][i]; assert a['x']==b['x']
    o.append('    {%d, %d, %d, %d, %d, %d, %d, %d,' % (a['rows'],a['n'],a['M'],a['shift'],a['diff_min'],b['M'],b['shift'],b['diff_min']))
    for key,src in (('x',a),('y',a),('y',b)):
        o.append('     {%s},' % ', '.join(map(str,src[key])))
    o.append('    },')
o.append('};')
o.append('/* int8 logistic and tanh of every input value: TFLite reference_integer_ops,')
o.append(' * parameters as TFLite Micro computes them (frexp of scale * 2^27). */')
o.append('struct act_case {\n    int32_t zp, mult, shift, radius;\n    int8_t logistic[256], tanh[256];\n};')
o.append('static const struct act_case k_tfl_act[] = {')
for i in range(5):
    a=odr['logistic'][i]; b=osr['logistic'][i]; assert a==b
    o.append('    {%d, %d, %d, %d,' % (a['zp_in'],a['M'],a['shift'],a['radius']))
    for key in ('logistic','tanh'):
        vals=a[key]; lines=[]
        for j in range(0,256,24): lines.append(', '.join(map(str,vals[j:j+24])))
        o.append('     {' + ',\n      '.join(lines) + '},')
    o.append('    },')
o.append('};')
print('\n'.join(o))
